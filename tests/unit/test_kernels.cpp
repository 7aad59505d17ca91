// Kernel registry and calls, matmul variants and accumulation, tile copies and splits.
#include <array>

#include "kernel_fixtures.hpp"

using namespace tra;
using namespace tra::kernels;
using namespace tra::kernel_testing;

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
        "add",       "argmin",  "col_sum",    "diag",      "diagonal",     "div",
        "einsum",    "exp",     "log",        "matmul",    "matmul_nt",    "matmul_tn",
        "matmul_tt", "max",     "min",        "min_index", "mul",          "relu",
        "relu_grad", "row_sum", "scale",      "sigmoid",   "softmax_rows", "sub",
        "sub_row",   "tanh",    "transpose",  "sqrt",      "rsqrt",        "square",
        "abs",       "neg",     "reciprocal", "gelu",      "gelu_tanh",    "silu",
        "softplus",  "sin",     "cos",        "expr",      "expr_join",    "fill_padding"};
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
    CHECK(error_of([&] {
              KernelCall("add").apply(std::vector<const Tile*>{&a, &b});
          }) == "add: operands have different dtypes: f64 and f32");
    CHECK(error_of([&] { KernelCall("add").apply(std::vector<const Tile*>{&a}); }) ==
          "add takes 2 operands, got 1");
    std::vector<Shape> one{Shape{2, 3}};
    CHECK(error_of([&] { KernelCall("matmul").output_shape(one); }) ==
          "matmul takes 2 operands, got 1");
}

TEST_CASE("flops per call: 2*m*n*k for matrix products and contracting einsums, else 0") {
    auto flops = [](const KernelCall& call, Shape a, Shape b) {
        std::vector<Shape> shapes{std::move(a), std::move(b)};
        return call.flops(shapes);
    };
    CHECK(flops(KernelCall("matmul"), Shape{2, 3}, Shape{3, 4}) == 2 * 2 * 3 * 4);
    CHECK(flops(KernelCall("matmul_tn"), Shape{3, 2}, Shape{3, 4}) == 48);
    CHECK(flops(KernelCall("matmul_nt"), Shape{2, 3}, Shape{4, 3}) == 48);
    CHECK(flops(KernelCall("add"), Shape{2, 2}, Shape{2, 2}) == 0);
    // [5, 2]^T x [3, 5]^T: m = 2, k = 5, n = 3.
    CHECK(flops(KernelCall("matmul_tt"), Shape{5, 2}, Shape{3, 5}) == 2 * 2 * 5 * 3);
    CHECK(flops(KernelCall("matmul"), Shape{6}, Shape{6}) == 0);
    CHECK(flops(KernelCall("einsum", spec_params("ik,kj->ij")), Shape{2, 3}, Shape{3, 4}) == 48);
    CHECK(flops(KernelCall("einsum", spec_params("bik,bkj->bij")), Shape{2, 3, 4},
                Shape{2, 4, 5}) == 2 * 2 * 3 * 4 * 5);
    // Nothing summed: one operation per element, not a multiply-add.
    CHECK(flops(KernelCall("einsum", spec_params("ij,ij->ij")), Shape{2, 3}, Shape{2, 3}) == 0);
    std::vector<Shape> one{Shape{2, 3}};
    CHECK(KernelCall("einsum", spec_params("ij->i")).flops(one) == 0);
    CHECK(KernelCall("relu").flops(one) == 0);
}

TEST_CASE("matmul variants match a naive product") {
    struct Case {
        std::string name;
        bool ta, tb;
    };
    // One column or one row: BLAS's gemv (lib/kernels/matmul.cpp) instead of gemm.
    using Extents = std::array<std::int64_t, 3>;  // m, k, n
    for (const Extents& e :
         {Extents{5, 3, 4}, Extents{5, 3, 1}, Extents{1, 3, 4}, Extents{1, 3, 1}})
        for (DType d : kDtypes)
            for (const Case& c : {Case{"matmul", false, false}, Case{"matmul_tn", true, false},
                                  Case{"matmul_nt", false, true}, Case{"matmul_tt", true, true}}) {
                const std::int64_t m = e[0], k = e[1], n = e[2];
                INFO(c.name << " " << name_of(d) << " " << m << " x " << k << " x " << n);
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
    CHECK(error_of([&] { mm.output_shape(bad); }) ==
          "matmul: inner extents differ: [4, 3] x [5, 2]");
    std::vector<Shape> flat{Shape{4}, Shape{4, 2}};
    CHECK(error_of([&] { mm.output_shape(flat); }) ==
          "matmul: operands must be 2-D, got [4] x [4, 2]");
    // The same problems as values, for callers that only ask whether operands fit.
    const Checked<Shape> not_fitting = mm.try_output_shape(bad);
    REQUIRE_FALSE(not_fitting.ok());
    CHECK(not_fitting.problem().message() == "matmul: inner extents differ: [4, 3] x [5, 2]");
    std::vector<Shape> one{Shape{4, 3}};
    CHECK(mm.try_output_shape(one).problem().message() == "matmul takes 2 operands, got 1");
    std::vector<Shape> fits{Shape{4, 3}, Shape{3, 2}};
    CHECK(*mm.try_output_shape(fits) == Shape{4, 2});
    std::vector<Shape> tn{Shape{3, 4}, Shape{3, 2}};
    CHECK(KernelCall("matmul_tn").output_shape(tn) == Shape{4, 2});
    std::vector<Shape> nt{Shape{4, 3}, Shape{2, 3}};
    CHECK(KernelCall("matmul_nt").output_shape(nt) == Shape{4, 2});
    std::vector<Shape> tt{Shape{3, 4}, Shape{2, 3}};
    CHECK(KernelCall("matmul_tt").output_shape(tt) == Shape{4, 2});
}

TEST_CASE("accumulate adds a product into the accumulator, or declines and leaves it alone") {
    using Extents = std::array<std::int64_t, 3>;  // m, k, n; one column or row: gemv
    for (const Extents& e : {Extents{5, 3, 4}, Extents{5, 3, 1}, Extents{1, 3, 4}})
        for (DType d : kDtypes) {
            const std::int64_t m = e[0], k = e[1], n = e[2];
            INFO(name_of(d) << " " << m << " x " << k << " x " << n);
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
            for (const Case& cs :
                 {Case{KernelCall("matmul"), ab}, Case{KernelCall("matmul_nt"), abt},
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
