#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "core/tile.hpp"
#include "kernels/kernel.hpp"
#include "kernels/registry.hpp"
#include "kernels/tile_copy.hpp"

using namespace tra;
using namespace tra::kernels;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Tile random_tile(DType d, Shape shape, double lo = -2.0, double hi = 2.0, unsigned seed = 1) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> dist(lo, hi);
    Tile t(d, std::move(shape));
    for (std::int64_t i = 0; i < t.elements(); ++i) t.set(i, dist(gen));
    return t;
}

Tile filled(DType d, Shape shape, double v) {
    Tile t(d, std::move(shape));
    for (std::int64_t i = 0; i < t.elements(); ++i) t.set(i, v);
    return t;
}

Tile from_values(DType d, Shape shape, std::vector<double> values) {
    Tile t(d, std::move(shape));
    REQUIRE(static_cast<std::int64_t>(values.size()) == t.elements());
    for (std::int64_t i = 0; i < t.elements(); ++i) t.set(i, values[i]);
    return t;
}

Tile run(const KernelCall& call, std::vector<const Tile*> ops, const TilePosition& where = {}) {
    Tile out = call.apply(ops, where);
    std::vector<Shape> shapes;
    for (const Tile* t : ops) shapes.push_back(t->shape());
    CHECK(out.shape() == call.output_shape(shapes));
    CHECK(out.dtype() == ops[0]->dtype());
    return out;
}

Tile run(const std::string& name, std::vector<const Tile*> ops, KernelParams p = {}) {
    return run(KernelCall(name, std::move(p)), std::move(ops));
}

double tolerance(DType d) { return d == DType::F32 ? 2e-5 : 1e-12; }

bool close(double got, double want, double tol) {
    if (std::isnan(want)) return std::isnan(got);
    if (std::isinf(want)) return got == want;
    return std::abs(got - want) <= tol * (1.0 + std::abs(want));
}

void require_close(const Tile& got, const Tile& want) {
    REQUIRE(got.shape() == want.shape());
    REQUIRE(got.dtype() == want.dtype());
    for (std::int64_t i = 0; i < got.elements(); ++i) {
        INFO("element " << i << " of " << got.shape().str());
        REQUIRE(close(got.get(i), want.get(i), tolerance(got.dtype())));
    }
}

// A tile of `shape` whose every element is f(row-major index vector).
Tile generate(DType d, const Shape& shape, const std::function<double(const Shape&)>& f) {
    Tile t(d, shape);
    Shape idx(shape.size());
    if (t.elements() == 0) return t;
    std::int64_t flat = 0;
    do t.set(flat++, f(idx));
    while (next_in_box(idx, shape));
    return t;
}

double at(const Tile& t, std::initializer_list<std::int64_t> idx) {
    return t.get(row_major_offset(Shape(idx), t.shape()));
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        CHECK(e.where().empty());
        return e.message();
    }
    return "<no error>";
}

const std::vector<DType> kDtypes = {DType::F32, DType::F64};

KernelParams factor_params(double f) {
    KernelParams p;
    p.factor = f;
    return p;
}

KernelParams spec_params(std::string spec, std::string join = "mul", std::string agg = "add") {
    KernelParams p;
    p.spec = std::move(spec);
    p.join_op = std::move(join);
    p.agg_op = std::move(agg);
    return p;
}

}  // namespace

TEST_CASE("registry lists every kernel once, by name") {
    std::vector<std::string> names;
    for (const Kernel* k : all_kernels()) {
        names.push_back(k->name);
        CHECK_FALSE(k->summary.empty());
        CHECK(k->summary.find('\n') == std::string::npos);
        CHECK(find_kernel(k->name) == k);
        CHECK(k->output_shape);
        CHECK(k->apply);
    }
    CHECK(std::is_sorted(names.begin(), names.end()));
    CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
    std::vector<std::string> expected = {
        "add",       "argmin",    "col_sum",   "diag",      "div",          "einsum",
        "exp",       "log",       "matmul",    "matmul_nt", "matmul_tn",    "matmul_tt",
        "max",       "min",       "min_index", "mul",       "relu",         "relu_grad",
        "row_sum",   "scale",     "sigmoid",   "softmax_rows", "sub",       "sub_row",
        "tanh",      "transpose"};
    std::sort(expected.begin(), expected.end());
    CHECK(names == expected);
    CHECK(find_kernel("nope") == nullptr);
}

TEST_CASE("kernel calls: lookup, str, operand_count, equality") {
    std::string msg = error_of([] { KernelCall("matmull"); });
    CHECK(msg.find("unknown kernel 'matmull'") != std::string::npos);
    CHECK(msg.find("matmul, matmul_nt") != std::string::npos);

    CHECK(KernelCall("matmul").str() == "matmul");
    CHECK(KernelCall("scale", factor_params(0.5)).str() == "scale(0.5)");
    CHECK(KernelCall("einsum", spec_params("ik,kj->ij")).str() ==
          "einsum(ik,kj->ij; join=mul, agg=add)");
    CHECK(KernelCall("einsum", spec_params("ik,kj->ij", "add", "min")).str() ==
          "einsum(ik,kj->ij; join=add, agg=min)");

    CHECK(KernelCall("matmul").operand_count() == 2);
    CHECK(KernelCall("relu").operand_count() == 1);
    CHECK(KernelCall("einsum", spec_params("ij->ji")).operand_count() == 1);
    CHECK(KernelCall("einsum", spec_params("ij->i")).operand_count() == 1);
    CHECK(KernelCall("einsum", spec_params("ik,kj->ij")).operand_count() == 2);
    CHECK(KernelCall("einsum", spec_params("ik,kj->ij")).arity() == 2);

    CHECK(KernelCall("scale", factor_params(0.5)) == KernelCall("scale", factor_params(0.5)));
    CHECK_FALSE(KernelCall("scale", factor_params(0.5)) == KernelCall("scale", factor_params(2.0)));
    CHECK_FALSE(KernelCall("add") == KernelCall("mul"));

    Tile a = random_tile(DType::F64, {2, 3});
    Tile b = random_tile(DType::F32, {2, 3});
    CHECK(error_of([&] { KernelCall("add").apply(std::vector<const Tile*>{&a, &b}); }) ==
          "add: operands have different dtypes: f64 and f32");
    CHECK(error_of([&] { KernelCall("add").apply(std::vector<const Tile*>{&a}); }) ==
          "add takes 2 operands, got 1");
    std::vector<Shape> one{Shape{2, 3}};
    CHECK(error_of([&] { KernelCall("matmul").output_shape(one); }) ==
          "matmul takes 2 operands, got 1");
}

TEST_CASE("matmul variants match a naive product") {
    struct Case {
        std::string name;
        bool ta, tb;
    };
    const std::int64_t m = 5, k = 3, n = 4;
    for (DType d : kDtypes)
        for (const Case& c : {Case{"matmul", false, false}, Case{"matmul_tn", true, false},
                              Case{"matmul_nt", false, true}, Case{"matmul_tt", true, true}}) {
            INFO(c.name << " " << name_of(d));
            Tile a = random_tile(d, c.ta ? Shape{k, m} : Shape{m, k}, -2, 2, 3);
            Tile b = random_tile(d, c.tb ? Shape{n, k} : Shape{k, n}, -2, 2, 4);
            Tile want = generate(d, {m, n}, [&](const Shape& i) {
                double s = 0;
                for (std::int64_t x = 0; x < k; ++x)
                    s += (c.ta ? at(a, {x, i[0]}) : at(a, {i[0], x})) *
                         (c.tb ? at(b, {i[1], x}) : at(b, {x, i[1]}));
                return s;
            });
            require_close(run(c.name, {&a, &b}), want);
        }
    const Tile e0 = Tile(DType::F64, {3, 0}), e1 = Tile(DType::F64, {0, 2});
    require_close(run("matmul", {&e0, &e1}), Tile(DType::F64, {3, 2}));

    KernelCall mm("matmul");
    std::vector<Shape> bad{Shape{4, 3}, Shape{5, 2}};
    CHECK(error_of([&] { mm.output_shape(bad); }) == "matmul: inner extents differ: [4, 3] x [5, 2]");
    std::vector<Shape> flat{Shape{4}, Shape{4, 2}};
    CHECK(error_of([&] { mm.output_shape(flat); }) == "matmul: operands must be 2-D, got [4] x [4, 2]");
    std::vector<Shape> tn{Shape{3, 4}, Shape{3, 2}};
    CHECK(KernelCall("matmul_tn").output_shape(tn) == Shape{4, 2});
    std::vector<Shape> nt{Shape{4, 3}, Shape{2, 3}};
    CHECK(KernelCall("matmul_nt").output_shape(nt) == Shape{4, 2});
    std::vector<Shape> tt{Shape{3, 4}, Shape{2, 3}};
    CHECK(KernelCall("matmul_tt").output_shape(tt) == Shape{4, 2});
}

TEST_CASE("accumulate adds a product into the accumulator, or declines and leaves it alone") {
    const std::int64_t m = 5, k = 3, n = 4;
    for (DType d : kDtypes) {
        INFO(name_of(d));
        const Tile a = random_tile(d, {m, k}, -2, 2, 3), b = random_tile(d, {k, n}, -2, 2, 4);
        const Tile bt = random_tile(d, {n, k}, -2, 2, 5), c = random_tile(d, {m, n}, -2, 2, 6);
        const Tile* ab[] = {&a, &b};
        const Tile* abt[] = {&a, &bt};
        struct Case {
            KernelCall call;
            std::span<const Tile* const> operands;
        };
        KernelParams gemm_nt;
        gemm_nt.spec = "ik,jk->ij";
        for (const Case& cs : {Case{KernelCall("matmul"), ab}, Case{KernelCall("matmul_nt"), abt},
                               Case{KernelCall("einsum", gemm_nt), abt}}) {
            INFO(cs.call.str());
            Tile acc = c;
            REQUIRE(cs.call.accumulate(acc, cs.operands));
            const Tile product = cs.call.apply(cs.operands);
            const Tile* sum[] = {&c, &product};
            require_close(acc, KernelCall("add").apply(sum));
        }
        // Not a matrix product (join max), a kernel without accumulate, a wrong-shaped acc.
        KernelParams max_plus;
        max_plus.spec = "ik,kj->ij";
        max_plus.join_op = "add";
        max_plus.agg_op = "max";
        const Tile* cc[] = {&c, &c};
        const Tile wrong = random_tile(d, {n, m}, -2, 2, 7);
        for (auto [call, operands, target] :
             {std::tuple{KernelCall("einsum", max_plus), std::span<const Tile* const>(ab), &c},
              std::tuple{KernelCall("add"), std::span<const Tile* const>(cc), &c},
              std::tuple{KernelCall("matmul"), std::span<const Tile* const>(ab), &wrong}}) {
            INFO(call.str());
            Tile acc = *target;
            CHECK_FALSE(call.accumulate(acc, operands));
            require_close(acc, *target);
        }
    }
}

TEST_CASE("an uninitialized tile has its dtype and shape, and copies keep every element") {
    Tile t = Tile::uninitialized(DType::F32, {3, 7});
    CHECK(t.dtype() == DType::F32);
    CHECK(t.shape() == Shape{3, 7});
    CHECK(t.bytes() == 3 * 7 * 4);
    for (std::int64_t i = 0; i < t.elements(); ++i) t.set(i, static_cast<double>(i));
    const Tile copy = t;
    require_close(copy, t);
    CHECK(Tile::uninitialized(DType::F64, {0, 4}).bytes() == 0);
}

TEST_CASE("elementwise binary kernels match naive loops") {
    std::map<std::string, std::function<double(double, double)>> ops = {
        {"add", [](double x, double y) { return x + y; }},
        {"sub", [](double x, double y) { return x - y; }},
        {"mul", [](double x, double y) { return x * y; }},
        {"div", [](double x, double y) { return x / y; }},
        {"max", [](double x, double y) { return std::max(x, y); }},
        {"min", [](double x, double y) { return std::min(x, y); }},
    };
    for (DType d : kDtypes)
        for (auto& [name, f] : ops) {
            INFO(name << " " << name_of(d));
            Tile a = random_tile(d, {3, 5, 2}, -2, 2, 5);
            Tile b = random_tile(d, {3, 5, 2}, 0.5, 2, 6);
            Tile want(d, a.shape());
            for (std::int64_t i = 0; i < a.elements(); ++i) want.set(i, f(a.get(i), b.get(i)));
            require_close(run(name, {&a, &b}), want);
            CHECK(find_kernel(name)->properties.elementwise);
        }
    std::vector<Shape> bad{Shape{2, 3}, Shape{3, 2}};
    CHECK(error_of([&] { KernelCall("add").output_shape(bad); }) ==
          "add: operand shapes differ: [2, 3] vs [3, 2]");
    Tile n = from_values(DType::F64, {2}, {std::nan(""), 1.0});
    Tile m = from_values(DType::F64, {2}, {1.0, std::nan("")});
    Tile both = run("max", {&n, &m});
    CHECK(std::isnan(both.get(0)));
    CHECK(std::isnan(both.get(1)));
}

TEST_CASE("sub_row subtracts a vector from every row") {
    for (DType d : kDtypes) {
        Tile a = random_tile(d, {4, 3}, -2, 2, 7);
        Tile v = random_tile(d, {3}, -2, 2, 8);
        Tile want = generate(d, {4, 3}, [&](const Shape& i) { return at(a, {i[0], i[1]}) - v.get(i[1]); });
        require_close(run("sub_row", {&a, &v}), want);
    }
    std::vector<Shape> bad{Shape{4, 3}, Shape{4}};
    CHECK(error_of([&] { KernelCall("sub_row").output_shape(bad); }) ==
          "sub_row: expects an [r, c] tile and a [c] vector, got [4, 3] x [4]");
}

TEST_CASE("unary maps match naive loops") {
    std::map<std::string, std::function<double(double)>> maps = {
        {"relu", [](double x) { return x > 0 ? x : 0; }},
        {"relu_grad", [](double x) { return x > 0 ? 1.0 : 0.0; }},
        {"sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }},
        {"tanh", [](double x) { return std::tanh(x); }},
        {"exp", [](double x) { return std::exp(x); }},
        {"log", [](double x) { return std::log(x); }},
        {"scale", [](double x) { return 0.5 * x; }},
    };
    for (DType d : kDtypes)
        for (auto& [name, f] : maps) {
            INFO(name << " " << name_of(d));
            Tile a = random_tile(d, {2, 3, 4}, name == "log" ? 0.1 : -3, 3, 9);
            a.set(0, name == "log" ? 1.0 : 0.0);  // relu and relu_grad at exactly 0
            Tile want(d, a.shape());
            for (std::int64_t i = 0; i < a.elements(); ++i) want.set(i, f(a.get(i)));
            require_close(run(name, {&a}, factor_params(0.5)), want);
            CHECK(find_kernel(name)->properties.elementwise);
        }
    Tile big = from_values(DType::F32, {3}, {-200, 200, 0});
    Tile s = run("sigmoid", {&big});
    CHECK(s.get(0) == Approx(0.0).margin(1e-30));
    CHECK(s.get(1) == 1.0);
    CHECK(s.get(2) == 0.5);

    std::vector<Shape> one{Shape{2}};
    CHECK(error_of([&] { KernelCall("scale").output_shape(one); }) ==
          "scale needs a factor, e.g. scale(0.5)");
    Tile a = random_tile(DType::F64, {2});
    CHECK(error_of([&] { KernelCall("scale").apply(std::vector<const Tile*>{&a}); }) ==
          "scale needs a factor, e.g. scale(0.5)");
}

TEST_CASE("row_sum, col_sum, diag, transpose match naive loops") {
    for (DType d : kDtypes) {
        INFO(name_of(d));
        Tile a = random_tile(d, {4, 3}, -2, 2, 10);
        require_close(run("row_sum", {&a}), generate(d, {4}, [&](const Shape& i) {
                          return at(a, {i[0], 0}) + at(a, {i[0], 1}) + at(a, {i[0], 2});
                      }));
        require_close(run("col_sum", {&a}), generate(d, {3}, [&](const Shape& i) {
                          double s = 0;
                          for (std::int64_t r = 0; r < 4; ++r) s += at(a, {r, i[0]});
                          return s;
                      }));
        require_close(run("transpose", {&a}),
                      generate(d, {3, 4}, [&](const Shape& i) { return at(a, {i[1], i[0]}); }));
        Tile big = random_tile(d, {37, 70}, -2, 2, 11);  // crosses the transpose block size
        require_close(run("transpose", {&big}),
                      generate(d, {70, 37}, [&](const Shape& i) { return at(big, {i[1], i[0]}); }));
        Tile sq = random_tile(d, {3, 3}, -2, 2, 12);
        require_close(run("diag", {&sq}),
                      generate(d, {3}, [&](const Shape& i) { return at(sq, {i[0], i[0]}); }));
    }
    std::vector<Shape> rect{Shape{3, 4}};
    CHECK(error_of([&] { KernelCall("diag").output_shape(rect); }) ==
          "diag: tile is not square: [3, 4]");
    std::vector<Shape> cube{Shape{2, 2, 2}};
    CHECK(error_of([&] { KernelCall("transpose").output_shape(cube); }) ==
          "transpose: expects a 2-D tile, got [2, 2, 2]");
    CHECK(error_of([&] { KernelCall("row_sum").output_shape(cube); }) ==
          "row_sum: expects a 2-D tile, got [2, 2, 2]");
}

TEST_CASE("softmax_rows is a stable row-wise softmax") {
    for (DType d : kDtypes) {
        Tile a = random_tile(d, {3, 5}, -3, 3, 13);
        Tile want = generate(d, {3, 5}, [&](const Shape& i) {
            double s = 0;
            for (std::int64_t c = 0; c < 5; ++c) s += std::exp(at(a, {i[0], c}));
            return std::exp(at(a, {i[0], i[1]})) / s;
        });
        require_close(run("softmax_rows", {&a}), want);
        Tile huge = from_values(d, {1, 3}, {1000, 1000, 1000});
        Tile s = run("softmax_rows", {&huge});
        for (int i = 0; i < 3; ++i) CHECK(s.get(i) == Approx(1.0 / 3));
    }
    CHECK(find_kernel("softmax_rows")->properties.requires_whole_rows);
}

TEST_CASE("argmin reports the global flat index of the minimum") {
    for (DType d : kDtypes) {
        INFO(name_of(d));
        // Tile (1, 2) of a relation with frontier [2, 3] and bound [2, 4]: the dense tensor is
        // 4 x 12 and local (1, 3) sits at global (3, 11), flat 3 * 12 + 11 = 47.
        Tile t = random_tile(d, {2, 4}, 0, 1, 14);
        t.set(1 * 4 + 3, -5);
        Tile out = run(KernelCall("argmin"), {&t}, {Key{1, 2}, Frontier{2, 3}});
        REQUIRE(out.shape() == Shape{2});
        CHECK(out.get(0) == -5);
        CHECK(out.get(1) == 47);
        // Ties go to the lowest index: local (0, 2) -> global (2, 10) = 34.
        t.set(0 * 4 + 2, -5);
        out = run(KernelCall("argmin"), {&t}, {Key{1, 2}, Frontier{2, 3}});
        CHECK(out.get(1) == 34);
        // A NaN never wins over a number.
        Tile n = from_values(d, {3}, {std::nan(""), 2, 1});
        out = run(KernelCall("argmin"), {&n}, {Key{2}, Frontier{3}});
        CHECK(out.get(0) == 1);
        CHECK(out.get(1) == 8);
        // Rank 0: one element at index 0.
        Tile scalar = from_values(d, {}, {7});
        out = run(KernelCall("argmin"), {&scalar});
        CHECK(out.get(0) == 7);
        CHECK(out.get(1) == 0);
    }
    Tile t = random_tile(DType::F64, {2, 4});
    CHECK(error_of([&] { KernelCall("argmin").apply(std::vector<const Tile*>{&t}); })
              .find("argmin: the tile has rank 2") == 0);
    CHECK(error_of([&] {
              KernelCall("argmin").apply(std::vector<const Tile*>{&t}, {Key{3, 0}, Frontier{2, 1}});
          }) == "argmin: key (3, 0) lies outside frontier [2, 1]");
    Tile f = random_tile(DType::F32, {1024, 1024});
    CHECK(error_of([&] {
              KernelCall("argmin").apply(std::vector<const Tile*>{&f}, {Key{0, 0}, Frontier{5, 5}});
          }).find("cannot hold exactly") != std::string::npos);
    const KernelProperties& p = find_kernel("argmin")->properties;
    CHECK(p.reads_tile_position);
    CHECK_FALSE(p.aggregation());
}

TEST_CASE("min_index keeps the smaller value, the lower index on ties") {
    for (DType d : kDtypes) {
        Tile a = from_values(d, {2}, {3, 10});
        Tile b = from_values(d, {2}, {2, 20});
        Tile c = from_values(d, {2}, {2, 5});
        Tile nan = from_values(d, {2}, {std::nan(""), 1});
        CHECK(run("min_index", {&a, &b}).get(1) == 20);
        CHECK(run("min_index", {&b, &a}).get(1) == 20);
        CHECK(run("min_index", {&b, &c}).get(1) == 5);
        CHECK(run("min_index", {&c, &b}).get(1) == 5);
        CHECK(run("min_index", {&nan, &a}).get(1) == 10);
        CHECK(run("min_index", {&a, &nan}).get(1) == 10);
    }
    std::vector<Shape> bad{Shape{3}, Shape{2}};
    CHECK(error_of([&] { KernelCall("min_index").output_shape(bad); }) ==
          "min_index: operands must be [2] tiles [value, index], got [3] x [2]");
    const KernelProperties& p = find_kernel("min_index")->properties;
    CHECK(p.aggregation());
    CHECK_FALSE(p.identity);
}

TEST_CASE("argmin aggregated by min_index finds the global argmin") {
    // A 6 x 6 tensor in 2 x 3 tiles; fold the per-tile argmins in a scrambled order.
    Tile whole = random_tile(DType::F64, {6, 6}, 0, 1, 15);
    whole.set(4 * 6 + 1, -1);
    whole.set(5 * 6 + 5, -1);  // a tie; 25 < 35 must win
    std::vector<Tile> partial;
    for (std::int64_t i : {2, 0, 1})
        for (std::int64_t j : {1, 0}) {
            Tile rows = split_tile(whole, 0, 2, i);
            Tile tile = split_tile(rows, 1, 3, j);
            partial.push_back(run(KernelCall("argmin"), {&tile}, {Key{i, j}, Frontier{3, 2}}));
        }
    Tile acc = partial[0];
    for (std::size_t i = 1; i < partial.size(); ++i) acc = run("min_index", {&acc, &partial[i]});
    CHECK(acc.get(0) == -1);
    CHECK(acc.get(1) == 25);
}

namespace {

// Independent reference: enumerates every assignment of the labels by integer division.
Tile naive_einsum(const std::vector<std::string>& ins, const std::string& out,
                  std::vector<const Tile*> ops, const std::string& join, const std::string& agg) {
    std::map<char, std::int64_t> extent;
    for (std::size_t i = 0; i < ins.size(); ++i)
        for (std::size_t d = 0; d < ins[i].size(); ++d) extent[ins[i][d]] = ops[i]->shape()[d];
    std::string labels;
    for (auto& [c, e] : extent) labels += c;
    Shape out_shape;
    for (char c : out) out_shape.push_back(extent[c]);
    std::map<std::string, std::function<double(double, double)>> f = {
        {"add", [](double x, double y) { return x + y; }},
        {"sub", [](double x, double y) { return x - y; }},
        {"mul", [](double x, double y) { return x * y; }},
        {"div", [](double x, double y) { return x / y; }},
        {"max", [](double x, double y) { return std::max(x, y); }},
        {"min", [](double x, double y) { return std::min(x, y); }},
    };
    std::map<std::string, double> identity = {{"add", 0}, {"mul", 1}, {"max", -kInf}, {"min", kInf}};
    Tile result = filled(ops[0]->dtype(), out_shape, identity[agg]);
    std::vector<double> acc(result.elements(), identity[agg]);
    std::int64_t total = 1;
    for (auto& [c, e] : extent) total *= e;
    for (std::int64_t n = 0; n < total; ++n) {
        std::map<char, std::int64_t> value;
        std::int64_t rest = n;
        for (std::size_t i = labels.size(); i-- > 0;) {
            value[labels[i]] = rest % extent[labels[i]];
            rest /= extent[labels[i]];
        }
        auto element = [&](std::size_t op) {
            Shape idx;
            for (char c : ins[op]) idx.push_back(value[c]);
            return ops[op]->get(row_major_offset(idx, ops[op]->shape()));
        };
        double v = ins.size() == 1 ? element(0) : f[join](element(0), element(1));
        Shape oidx;
        for (char c : out) oidx.push_back(value[c]);
        std::int64_t o = row_major_offset(oidx, out_shape);
        acc[o] = f[agg](acc[o], v);
    }
    for (std::int64_t i = 0; i < result.elements(); ++i) result.set(i, acc[i]);
    return result;
}

}  // namespace

TEST_CASE("einsum matches a naive contraction") {
    struct Case {
        std::vector<std::string> ins;
        std::string out;
        std::string join = "mul", agg = "add";
    };
    std::map<char, std::int64_t> ext = {{'b', 2}, {'i', 3}, {'j', 4}, {'k', 5}, {'l', 2}};
    std::vector<Case> cases = {
        {{"ik", "kj"}, "ij"},                 // BLAS paths, every transpose combination
        {{"ki", "kj"}, "ij"},
        {{"ik", "jk"}, "ij"},
        {{"ki", "jk"}, "ij"},
        {{"ik", "kj"}, "ji"},
        {{"ki", "jk"}, "ji"},
        {{"ik", "kj"}, "ij", "add", "min"},   // min-plus (shortest paths)
        {{"ik", "kj"}, "ij", "sub", "max"},
        {{"ik", "kj"}, "ij", "max", "mul"},
        {{"ik", "kj"}, "ij", "div", "add"},
        {{"ij", "ij"}, "", "mul", "add"},     // rank-0 output: Frobenius inner product
        {{"ij", "ij"}, "ij"},                 // elementwise, nothing summed
        {{"bik", "bkj"}, "bij"},              // batched
        {{"ik", "jl"}, "ijkl"},               // outer product
        {{"ij", "j"}, "i"},
        {{"ij"}, "ji"},
        {{"ij"}, "i"},
        {{"ij"}, "j", "mul", "max"},
        {{"ij"}, ""},
        {{"bij"}, "jbi"},
    };
    for (DType d : kDtypes)
        for (const Case& c : cases) {
            std::string spec;
            for (std::size_t i = 0; i < c.ins.size(); ++i) spec += (i ? "," : "") + c.ins[i];
            spec += "->" + c.out;
            INFO(spec << " join=" << c.join << " agg=" << c.agg << " " << name_of(d));
            std::vector<Tile> tiles;
            for (std::size_t i = 0; i < c.ins.size(); ++i) {
                Shape s;
                for (char l : c.ins[i]) s.push_back(ext[l]);
                tiles.push_back(random_tile(d, s, 0.5, 2, 20 + static_cast<unsigned>(i)));
            }
            std::vector<const Tile*> ops;
            for (const Tile& t : tiles) ops.push_back(&t);
            KernelCall call("einsum", spec_params(spec, c.join, c.agg));
            CHECK(call.operand_count() == static_cast<int>(c.ins.size()));
            Tile got = run(call, ops);
            CHECK(got.rank() == c.out.size());
            require_close(got, naive_einsum(c.ins, c.out, ops, c.join, c.agg));
        }
}

TEST_CASE("einsum spec and shape errors") {
    auto spec_error = [](KernelParams p) { return error_of([&] { KernelCall("einsum", p); }); };
    CHECK(spec_error(spec_params("")) == "einsum needs a spec, e.g. einsum(ik,kj->ij)");
    CHECK(spec_error(spec_params("ik,kj")) == "einsum: bad spec 'ik,kj': expected one '->', e.g. ik,kj->ij");
    CHECK(spec_error(spec_params("ii->i")) == "einsum: bad spec 'ii->i': label 'i' repeats in operand 1");
    CHECK(spec_error(spec_params("ij->ii")) == "einsum: bad spec 'ij->ii': label 'i' repeats in the output");
    CHECK(spec_error(spec_params("ik,kj->iz")) ==
          "einsum: bad spec 'ik,kj->iz': output label 'z' appears in no operand");
    CHECK(spec_error(spec_params("iK->i")) ==
          "einsum: bad spec 'iK->i': labels are single lowercase letters, got 'K'");
    CHECK(spec_error(spec_params("i,j,k->ijk")) ==
          "einsum: bad spec 'i,j,k->ijk': einsum takes 1 or 2 operands, got 3");
    CHECK(spec_error(spec_params("ij->i", "pow")) ==
          "einsum: unknown join 'pow' (mul, add, sub, div, max, min)");
    CHECK(spec_error(spec_params("ij->i", "mul", "sub")) ==
          "einsum: unknown agg 'sub' (add, mul, max, min)");

    KernelCall mm("einsum", spec_params("ik,kj->ij"));
    std::vector<Shape> bad{Shape{4, 3}, Shape{5, 2}};
    CHECK(error_of([&] { mm.output_shape(bad); }) ==
          "einsum: label 'k' has extents 3 and 5 in [4, 3] x [5, 2]");
    std::vector<Shape> rank{Shape{4, 3, 1}, Shape{3, 2}};
    CHECK(error_of([&] { mm.output_shape(rank); }) ==
          "einsum: operand 1 has shape [4, 3, 1] but 'ik' names 2 labels");
    std::vector<Shape> good{Shape{4, 3}, Shape{3, 2}};
    CHECK(mm.output_shape(good) == Shape{4, 2});
    std::vector<Shape> one{Shape{4, 3}};
    CHECK(error_of([&] { mm.output_shape(one); }) ==
          "einsum(ik,kj->ij; join=mul, agg=add) takes 2 operands, got 1");
    CHECK(KernelCall("einsum", spec_params("ij,ij->")).output_shape(good = {Shape{2, 3}, Shape{2, 3}}) ==
          Shape{});
}

namespace {

// Operand shape for property checks: square where a kernel needs it, [2] for min_index.
Shape property_shape(const std::string& name) {
    if (name.rfind("matmul", 0) == 0 || name == "diag") return {3, 3};
    if (name == "min_index") return {2};
    return {3, 4};
}

Tile property_operand(DType d, const std::string& name, unsigned seed) {
    // Mixed signs so a property that holds only for positive values fails; log alone needs
    // positive values. min_index gets [value, integer index] pairs with repeated values so ties
    // happen.
    if (name == "min_index") return from_values(d, {2}, {double(seed % 2), double(seed % 5)});
    return random_tile(d, property_shape(name), name == "log" ? 0.25 : -2, 2, seed);
}

Tile call(const std::string& name, std::vector<const Tile*> ops) {
    return run(name, std::move(ops), factor_params(0.5));
}

}  // namespace

TEST_CASE("algebraic properties hold numerically") {
    for (DType d : kDtypes)
        for (const Kernel* k : all_kernels()) {
            const std::string& f = k->name;
            const KernelProperties& p = k->properties;
            INFO(f << " " << name_of(d));
            if (f == "einsum") {
                CHECK_FALSE(p.associative);
                CHECK(p.distributes_over.empty());
                continue;
            }
            for (unsigned s = 0; s < 6; ++s) {
                Tile a = property_operand(d, f, 31 + s), b = property_operand(d, f, 37 + 2 * s),
                     c = property_operand(d, f, 41 + 3 * s);
                if (p.commutative) require_close(call(f, {&a, &b}), call(f, {&b, &a}));
                if (p.associative) {
                    Tile ab = call(f, {&a, &b}), bc = call(f, {&b, &c});
                    require_close(call(f, {&ab, &c}), call(f, {&a, &bc}));
                }
                if (p.identity) {
                    Tile e = filled(d, a.shape(), *p.identity);
                    require_close(call(f, {&e, &a}), a);
                    require_close(call(f, {&a, &e}), a);
                }
                if (p.annihilator) {
                    Tile z = filled(d, a.shape(), *p.annihilator);
                    require_close(call(f, {&z, &a}), z);
                    require_close(call(f, {&a, &z}), z);
                }
                for (const std::string& g : p.distributes_over) {
                    INFO("distributes over " << g);
                    const Kernel* gk = find_kernel(g);
                    REQUIRE(gk);
                    CHECK(gk->properties.aggregation());
                    Tile gab = call(g, {&a, &b});
                    if (k->arity == 1) {
                        Tile fa = call(f, {&a}), fb = call(f, {&b});
                        require_close(call(f, {&gab}), call(g, {&fa, &fb}));
                    } else {
                        Tile fac = call(f, {&a, &c}), fbc = call(f, {&b, &c});
                        require_close(call(f, {&gab, &c}), call(g, {&fac, &fbc}));
                        Tile fca = call(f, {&c, &a}), fcb = call(f, {&c, &b});
                        require_close(call(f, {&c, &gab}), call(g, {&fca, &fcb}));
                    }
                }
            }
        }
}

TEST_CASE("declared properties") {
    auto props = [](const std::string& n) { return find_kernel(n)->properties; };
    CHECK(props("matmul").associative);
    CHECK_FALSE(props("matmul").commutative);
    CHECK_FALSE(props("matmul_tn").associative);
    CHECK(props("matmul").distributes_over == std::vector<std::string>{"add"});
    for (const char* n : {"add", "mul", "max", "min", "min_index"}) CHECK(props(n).aggregation());
    for (const char* n : {"sub", "div", "matmul", "sub_row", "scale", "einsum"})
        CHECK_FALSE(props(n).aggregation());
    CHECK(props("add").identity == 0.0);
    CHECK(props("mul").identity == 1.0);
    CHECK(props("mul").annihilator == 0.0);
    CHECK(props("max").identity == -kInf);
    CHECK(props("min").identity == kInf);
    CHECK(props("add").distributes_over == std::vector<std::string>{"max", "min"});
    CHECK(props("mul").distributes_over == std::vector<std::string>{"add"});
    CHECK(props("scale").distributes_over == std::vector<std::string>{"add"});
    CHECK_FALSE(props("sub").identity);
    CHECK(props("sub").distributes_over.empty());
    CHECK(find_kernel("einsum")->arity == 2);
}

TEST_CASE("split_tile and concat_tiles round trip in every dimension") {
    for (DType d : kDtypes) {
        Tile t = random_tile(d, {4, 6, 3}, -2, 2, 50);
        for (std::size_t dim = 0; dim < 3; ++dim) {
            std::int64_t size = dim == 1 ? 2 : t.shape()[dim] / (dim == 0 ? 2 : 3);
            std::vector<Tile> pieces;
            for (std::int64_t i = 0; i < t.shape()[dim] / size; ++i) {
                pieces.push_back(split_tile(t, dim, size, i));
                Tile& p = pieces.back();
                Shape want_shape = t.shape();
                want_shape[dim] = size;
                REQUIRE(p.shape() == want_shape);
                Shape idx(3);
                do {
                    Shape src = idx;
                    src[dim] += i * size;
                    REQUIRE(p.get(row_major_offset(idx, p.shape())) ==
                            t.get(row_major_offset(src, t.shape())));
                } while (next_in_box(idx, p.shape()));
            }
            std::vector<const Tile*> ptrs;
            for (const Tile& p : pieces) ptrs.push_back(&p);
            require_close(concat_tiles(ptrs, dim), t);
        }
        // Pieces of different sizes concatenate too.
        Tile a = random_tile(d, {2, 1}), b = random_tile(d, {2, 3});
        std::vector<const Tile*> ab{&a, &b};
        Tile ab_cat = concat_tiles(ab, 1);
        CHECK(ab_cat.shape() == Shape{2, 4});
        CHECK(ab_cat.get(4) == a.get(1));
        CHECK(ab_cat.get(5) == b.get(3));
    }
    Tile t = random_tile(DType::F64, {4, 6});
    CHECK_THROWS_AS(split_tile(t, 2, 1, 0), Error);
    CHECK(error_of([&] { split_tile(t, 1, 4, 0); }) ==
          "tile: piece size 4 does not divide extent 6 of dimension 1");
    CHECK_THROWS_AS(split_tile(t, 1, 0, 0), Error);
    CHECK_THROWS_AS(split_tile(t, 1, 3, 2), Error);
    Tile u = random_tile(DType::F64, {3, 6}), f = random_tile(DType::F32, {4, 6});
    std::vector<const Tile*> mism{&t, &u};
    CHECK(error_of([&] { concat_tiles(mism, 1); }) ==
          "concat: pieces [4, 6] and [3, 6] differ outside dimension 1");
    CHECK(concat_tiles(mism, 0).shape() == Shape{7, 6});
    std::vector<const Tile*> types{&t, &f};
    CHECK_THROWS_AS(concat_tiles(types, 0), Error);
    CHECK_THROWS_AS(concat_tiles(std::vector<const Tile*>{}, 0), Error);
    std::vector<const Tile*> one{&t};
    CHECK_THROWS_AS(concat_tiles(one, 2), Error);
}
