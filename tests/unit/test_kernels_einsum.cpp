// The einsum kernel against a naive contraction, and its spec and shape errors.
#include "kernel_fixtures.hpp"

using namespace tra;
using namespace tra::kernels;
using namespace tra::kernel_testing;

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
    std::map<std::string, double> identity = {
        {"add", 0}, {"mul", 1}, {"max", -kInf}, {"min", kInf}};
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
        {{"ik", "kj"}, "ij"},  // BLAS paths, every transpose combination
        {{"ki", "kj"}, "ij"},
        {{"ik", "jk"}, "ij"},
        {{"ki", "jk"}, "ij"},
        {{"ik", "kj"}, "ji"},
        {{"ki", "jk"}, "ji"},
        {{"ik", "kj"}, "ij", "add", "min"},  // min-plus (shortest paths)
        {{"ik", "kj"}, "ij", "sub", "max"},
        {{"ik", "kj"}, "ij", "max", "mul"},
        {{"ik", "kj"}, "ij", "div", "add"},
        {{"ij", "ij"}, "", "mul", "add"},  // rank-0 output: Frobenius inner product
        {{"ij", "ij"}, "ij"},              // elementwise, nothing summed
        {{"bik", "bkj"}, "bij"},           // batched
        {{"ik", "jl"}, "ijkl"},            // outer product
        {{"ij", "j"}, "i"},
        {{"ij"}, "ji"},
        {{"ij"}, "i"},
        {{"ij"}, "j", "mul", "max"},
        {{"ij"}, ""},
        {{"bij"}, "jbi"},
        // The loop with its innermost label not the output's last, and products out of order.
        {{"ijk"}, "ki", "mul", "min"},
        {{"bij", "jbk"}, "bik", "add", "max"},
        {{"ikj", "kj"}, "ji", "sub", "min"},
        {{"bij", "jbk"}, "kib"},
        {{"ijk", "k"}, "i"},  // j summed inside one operand
        {{"ij", "kl"}, "ljki"},
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
    CHECK(spec_error(spec_params("ik,kj")) ==
          "einsum: bad spec 'ik,kj': expected one '->', e.g. ik,kj->ij");
    CHECK(spec_error(spec_params("ii->i")) ==
          "einsum: bad spec 'ii->i': label 'i' repeats in operand 1");
    CHECK(spec_error(spec_params("ij->ii")) ==
          "einsum: bad spec 'ij->ii': label 'i' repeats in the output");
    CHECK(spec_error(spec_params("ik,kj->iz")) ==
          "einsum: bad spec 'ik,kj->iz': output label 'z' appears in no operand");
    CHECK(spec_error(spec_params("iK->i")) ==
          "einsum: bad spec 'iK->i': labels are single lowercase letters, got 'K'");
    CHECK(spec_error(spec_params("i,j,k->ijk")) ==
          "einsum: bad spec 'i,j,k->ijk': einsum takes 1 or 2 operands, got 3");
    CHECK(spec_error(spec_params("ij->i", "pow")) ==
          "einsum: unknown join 'pow' (mul, add, sub, div, max, min, or an expression)");
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
    CHECK(KernelCall("einsum", spec_params("ij,ij->"))
              .output_shape(good = {Shape{2, 3}, Shape{2, 3}}) == Shape{});
}
