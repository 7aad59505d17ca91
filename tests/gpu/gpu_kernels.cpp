// Every registry kernel on the GPU against its CPU implementation: same operands, results equal
// within the dtype's tolerance. Exits 77 (CTest's skip) with a message when this build has no
// GPU backend or no GPU is visible.
#include <catch2/catch.hpp>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "catch_runner.hpp"
#include "core/tile.hpp"
#include "kernels/gpu.hpp"
#include "kernels/kernel.hpp"
#include "kernels/registry.hpp"
#include "kernels/tile_copy.hpp"

using namespace tra;
using namespace tra::kernels;

namespace {

constexpr int kSkip = 77;

// Operands in [lo, hi): kernels like log and div get positive ones.
struct Case {
    KernelParams params;
    std::vector<Shape> shapes;
    double lo = -2.0, hi = 2.0;
    TilePosition where;
};

Case on(std::vector<Shape> shapes, KernelParams params = {}, double lo = -2.0, double hi = 2.0) {
    Case c;
    c.params = std::move(params);
    c.shapes = std::move(shapes);
    c.lo = lo;
    c.hi = hi;
    return c;
}

Case einsum(const char* spec, const char* join, const char* agg, std::vector<Shape> shapes) {
    KernelParams p;
    p.spec = spec;
    p.join_op = join;
    p.agg_op = agg;
    return on(std::move(shapes), p);
}

// Shapes chosen to cover more than one block of threads and ragged edges.
std::map<std::string, std::vector<Case>> cases() {
    const Shape m{37, 300};
    std::map<std::string, std::vector<Case>> c;
    c["matmul"] = {on({{65, 33}, {33, 47}}), on({{5, 0}, {0, 3}})};
    c["matmul_tn"] = {on({{33, 65}, {33, 47}})};
    c["matmul_nt"] = {on({{65, 33}, {47, 33}})};
    c["matmul_tt"] = {on({{33, 65}, {47, 33}})};
    for (const char* op : {"add", "sub", "mul", "max", "min"}) c[op] = {on({m, m})};
    c["div"] = {on({m, m}, {}, 0.5, 2.0)};
    c["sub_row"] = {on({m, {300}})};
    KernelParams half;
    half.factor = 0.5;
    c["scale"] = {on({m}, half)};
    for (const char* op : {"relu", "relu_grad", "sigmoid", "tanh", "exp", "square", "abs", "neg",
                           "gelu", "gelu_tanh", "silu", "softplus", "sin", "cos"})
        c[op] = {on({m})};
    // Large |x| too, where the stable forms matter (exp(700) overflows a double).
    for (const char* op : {"gelu", "gelu_tanh", "silu", "softplus"})
        c[op].push_back(on({m}, {}, -700.0, 700.0));
    // Positive operands where the function needs them or blows up near 0.
    for (const char* op : {"log", "sqrt", "rsqrt", "reciprocal"}) c[op] = {on({m}, {}, 0.1, 3.0)};
    for (const char* op : {"row_sum", "col_sum", "softmax_rows", "transpose"})
        c[op] = {on({m}), on({{1000, 3}}), on({{3, 1000}})};
    c["diag"] = {on({{70, 70}})};
    KernelParams diagonal;
    diagonal.spec = "jbje->bje";
    c["diagonal"] = {on({{40, 3, 40, 7}}, diagonal)};
    Case argmin = on({{13, 700}});
    argmin.where = {Key{1, 2}, Frontier{3, 4}};
    c["argmin"] = {argmin};
    // The last column tile of a tensor 1500 wide (1400..2099), and a row tile half past 20.
    KernelParams columns, rows;
    columns.spec = "1:1500";
    columns.factor = -std::numeric_limits<double>::infinity();
    rows.spec = "0:20";
    rows.factor = 0.0;
    Case fill_columns = on({{13, 700}}, columns), fill_rows = on({{13, 700}}, rows);
    fill_columns.where = {Key{1, 2}, Frontier{3, 3}};
    fill_rows.where = {Key{1, 0}, Frontier{2, 1}};
    c["fill_padding"] = {fill_columns, fill_rows};
    c["min_index"] = {on({{2}, {2}})};
    // Every function and operator of the expression language, on values inside their domains.
    KernelParams expr, expr_join, expr_const;
    expr.expr = "x * rsqrt(x * x + 1e-6) + exp(-x) - log(x) * sqrt(x) + tanh(x) / sigmoid(-x)";
    expr_join.expr = "erf(a) * abs(b) - sin(a) * cos(b) + min(a, b) / max(a, -b) + pow(a, b)";
    expr_const.expr = "sqrt(2) + 0 * x";  // a folded constant as an operand
    c["expr"] = {on({m}, expr, 0.1, 3.0), on({m}, expr_const)};
    c["expr_join"] = {on({m, m}, expr_join, 0.1, 3.0)};
    c["einsum"] = {einsum("ik,kj->ij", "mul", "add", {{40, 30}, {30, 20}}),
                   einsum("ki,jk->ji", "mul", "add", {{30, 40}, {20, 30}}),
                   einsum("ik,kj->ij", "add", "min", {{40, 30}, {30, 20}}),
                   einsum("ijk,jk->i", "sub", "max", {{6, 5, 4}, {5, 4}}),
                   einsum("ij->ji", "mul", "add", {{7, 9}}),
                   einsum("ij->i", "mul", "mul", {{7, 9}}),
                   einsum("ij,j->ij", "div", "add", {{7, 9}, {9}}),
                   einsum("bij,bjk->bik", "mul", "add", {{3, 40, 30}, {3, 30, 20}}),
                   einsum("bji,bkj->bik", "mul", "add", {{3, 30, 40}, {3, 20, 30}}),
                   einsum("ijk,kl->ijl", "mul", "add", {{4, 5, 30}, {30, 20}}),
                   einsum("ne,ne->n", "mul", "add", {{50, 33}, {50, 33}}),
                   einsum("bij,bjk->bik", "mul", "add", {{2, 5, 0}, {2, 0, 3}}),
                   // Out of GEMM order: permuted in and out (issue 19).
                   einsum("shd,thd->hst", "mul", "add", {{40, 3, 16}, {30, 3, 16}}),
                   einsum("acbd,dcef->feab", "mul", "add", {{3, 4, 5, 6}, {6, 4, 7, 2}}),
                   einsum("ikj,k->i", "mul", "add", {{6, 5, 4}, {5}})};
    return c;
}

Tile random_tile(DType d, const Shape& shape, double lo, double hi, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> dist(lo, hi);
    Tile t(d, shape);
    for (std::int64_t i = 0; i < t.elements(); ++i) t.set(i, dist(gen));
    return t;
}

// numpy.allclose's rule with tra diff's defaults per dtype (docs/cli.md); NaN equals NaN. One
// REQUIRE for the first differing element, so large tiles stay cheap to compare.
void require_close(const Tile& gpu, const Tile& cpu, const std::string& what) {
    REQUIRE(gpu.shape() == cpu.shape());
    const bool f32 = cpu.dtype() == DType::F32;
    const double rtol = f32 ? 1e-4 : 1e-9, atol = f32 ? 1e-5 : 1e-12;
    for (std::int64_t i = 0; i < cpu.elements(); ++i) {
        const double x = gpu.get(i), y = cpu.get(i);
        if (std::isnan(x) && std::isnan(y)) continue;
        if (x == y || std::fabs(x - y) <= atol + rtol * std::fabs(y)) continue;
        INFO(what << " element " << i << ": gpu " << x << " cpu " << y);
        REQUIRE(false);
    }
}

// The kernel on the GPU equals it on the CPU for these operands.
void require_same_on_gpu(const KernelCall& call, const std::vector<Tile>& host,
                         const TilePosition& where = {}) {
    std::vector<Tile> device;
    std::vector<const Tile*> h, g;
    for (const Tile& t : host) device.push_back(t.to(Residence::Device));
    for (std::size_t i = 0; i < host.size(); ++i) {
        h.push_back(&host[i]);
        g.push_back(&device[i]);
    }
    const Tile want = call.apply(h, where);
    const Tile got = call.apply(g, where);
    REQUIRE(got.on_device());
    require_close(got.to(Residence::Host), want, call.str() + " " + name_of(host[0].dtype()));
}

}  // namespace

TEST_CASE("every kernel on the GPU equals its CPU implementation", "[gpu]") {
    const auto all = cases();
    for (const Kernel* k : all_kernels()) {
        INFO("kernel " << k->name);
        REQUIRE(all.count(k->name) == 1);  // a new kernel needs a case here
        for (const Case& c : all.at(k->name))
            for (DType d : {DType::F32, DType::F64}) {
                std::vector<Tile> host;
                unsigned seed = 1;
                for (const Shape& s : c.shapes)
                    host.push_back(random_tile(d, s, c.lo, c.hi, seed++));
                require_same_on_gpu(KernelCall(k->name, c.params), host, c.where);
            }
    }
}

TEST_CASE("split and concat on the GPU equal the CPU's", "[gpu]") {
    const Tile host = random_tile(DType::F64, Shape{6, 8, 10}, -1, 1, 3);
    const Tile dev = host.to(Residence::Device);
    for (std::size_t dim = 0; dim < 3; ++dim) {
        std::vector<Tile> pieces;
        for (std::int64_t i = 0; i < 2; ++i) {
            const std::int64_t size = host.shape()[dim] / 2;
            pieces.push_back(split_tile(dev, dim, size, i));
            require_close(pieces.back().to(Residence::Host), split_tile(host, dim, size, i),
                          "split");
        }
        const Tile* parts[] = {&pieces[0], &pieces[1]};
        require_close(concat_tiles(parts, dim).to(Residence::Host), host, "concat");
    }
}

TEST_CASE("GPU kernels refuse what the CPU kernels refuse", "[gpu]") {
    const Tile a = Tile(DType::F32, Shape{2, 3}).to(Residence::Device);
    const Tile b = Tile(DType::F32, Shape{4, 5}).to(Residence::Device);
    const Tile* ops[] = {&a, &b};
    REQUIRE_THROWS_WITH(KernelCall("matmul").apply(ops), Catch::Contains("inner extents differ"));
}

TEST_CASE("matrix products accumulate in place on the GPU as on the CPU", "[gpu]") {
    // A fused join + sum keeps one accumulator per group: acc += product, gemm with beta = 1.
    struct Product {
        KernelCall call;
        std::vector<Shape> shapes;
    };
    auto spec = [](const char* s) {
        KernelParams p;
        p.spec = s;
        p.join_op = "mul";
        p.agg_op = "add";
        return p;
    };
    const std::vector<Product> products = {
        {KernelCall("matmul"), {{65, 33}, {33, 47}}},
        {KernelCall("matmul_tn"), {{33, 65}, {33, 47}}},
        {KernelCall("einsum", spec("ik,kj->ij")), {{40, 30}, {30, 20}}},
        {KernelCall("einsum", spec("bij,bjk->bik")), {{3, 40, 30}, {3, 30, 20}}},
        {KernelCall("einsum", spec("ne,ne->n")), {{50, 33}, {50, 33}}},
        {KernelCall("einsum", spec("acbd,dcef->feab")), {{3, 4, 5, 6}, {6, 4, 7, 2}}}};
    for (const Product& p : products)
        for (DType d : {DType::F32, DType::F64}) {
            INFO(p.call.str() << " " << name_of(d));
            const Tile a = random_tile(d, p.shapes[0], -1, 1, 1);
            const Tile b = random_tile(d, p.shapes[1], -1, 1, 2);
            const Tile* h[] = {&a, &b};
            Tile cpu = p.call.apply(h);
            const Tile da = a.to(Residence::Device), db = b.to(Residence::Device);
            const Tile* g[] = {&da, &db};
            Tile gpu = cpu.to(Residence::Device);
            REQUIRE(p.call.accumulate(cpu, h));
            REQUIRE(p.call.accumulate(gpu, g));
            require_close(gpu.to(Residence::Host), cpu, "accumulate");
            // Mixed residences never accumulate: nothing is touched.
            REQUIRE_FALSE(p.call.accumulate(cpu, g));
        }
    // A non-product einsum declines on both devices.
    KernelParams minplus = spec("ik,kj->ij");
    minplus.join_op = "add";
    minplus.agg_op = "min";
    const KernelCall tropical("einsum", minplus);
    const Tile a = random_tile(DType::F64, Shape{4, 3}, -1, 1, 1).to(Residence::Device);
    const Tile b = random_tile(DType::F64, Shape{3, 4}, -1, 1, 2).to(Residence::Device);
    const Tile* ops[] = {&a, &b};
    Tile acc = Tile(DType::F64, Shape{4, 4}).to(Residence::Device);
    REQUIRE_FALSE(tropical.accumulate(acc, ops));
}

TEST_CASE("NaN, infinities and ties on the GPU as on the CPU", "[gpu]") {
    const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
    for (DType d : {DType::F32, DType::F64}) {
        Tile t = random_tile(d, Shape{6, 700}, -2, 2, 9);
        // Row 0: ties of the minimum; row 1: -inf twice; row 2: all NaN; row 3: NaN first and
        // +inf; row 4: all -inf (softmax's NaN); row 5: a NaN among numbers.
        for (std::int64_t c = 0; c < 700; ++c) {
            t.set(0 * 700 + c, double(c % 7));
            t.set(2 * 700 + c, nan);
            t.set(4 * 700 + c, -inf);
        }
        t.set(1 * 700 + 5, -inf);
        t.set(1 * 700 + 600, -inf);
        t.set(3 * 700 + 0, nan);
        t.set(3 * 700 + 9, inf);
        t.set(5 * 700 + 300, nan);
        const Tile u = random_tile(d, Shape{6, 700}, -2, 2, 10);
        for (const char* k : {"row_sum", "col_sum", "softmax_rows", "relu", "exp", "transpose"})
            require_same_on_gpu(KernelCall(k), {t});
        for (const char* k : {"max", "min", "add"}) require_same_on_gpu(KernelCall(k), {t, u});
        require_same_on_gpu(KernelCall("argmin"), {t}, {Key{1, 2}, Frontier{3, 4}});
        for (std::int64_t r = 0; r < 6; ++r) {
            Tile row(d, Shape{700});
            for (std::int64_t c = 0; c < 700; ++c) row.set(c, t.get(r * 700 + c));
            require_same_on_gpu(KernelCall("argmin"), {row}, {Key{2}, Frontier{5}});
        }
        Tile a(d, Shape{2}), b(d, Shape{2});
        a.set(0, nan), a.set(1, 3), b.set(0, 1), b.set(1, 7);
        require_same_on_gpu(KernelCall("min_index"), {a, b});
        require_same_on_gpu(KernelCall("min_index"), {b, a});
    }
}

TEST_CASE("tiles beyond one launch's grid on the GPU equal the CPU's", "[gpu][large]") {
    // 65,535 blocks of 256 threads cover 16.7M elements; transpose's grid.y covers 2.1M rows.
    const DType d = DType::F32;
    const Tile many = random_tile(d, Shape{4200, 4100}, -1, 1, 4);  // 17.2M elements
    const Tile other = random_tile(d, Shape{4200, 4100}, -1, 1, 5);
    require_same_on_gpu(KernelCall("add"), {many, other});
    require_same_on_gpu(KernelCall("relu"), {many});
    require_same_on_gpu(KernelCall("transpose"), {many});
    // Sums over millions of terms: in f64, so the GPU's chunked order and the CPU's serial one
    // agree within tolerance (in f32 they differ by rounding alone).
    const Tile tall = random_tile(DType::F64, Shape{2200000, 3}, -1, 1, 6);
    for (const char* k : {"transpose", "row_sum", "col_sum", "softmax_rows"})
        require_same_on_gpu(KernelCall(k), {tall});
    const Tile wide = random_tile(DType::F64, Shape{3, 2200000}, -1, 1, 7);
    for (const char* k : {"transpose", "row_sum", "col_sum", "softmax_rows"})
        require_same_on_gpu(KernelCall(k), {wide});
    // f64: argmin's indices above 2^24 are not exact in f32, which the kernel refuses.
    const Tile column = random_tile(DType::F64, Shape{17000000}, -1, 1, 8);
    require_same_on_gpu(KernelCall("argmin"), {column}, {Key{0}, Frontier{1}});
}

int main(int argc, char* argv[]) {
    if (!gpu_backend_built()) {
        std::cout << "SKIP: this tra was built without -DTRA_CUDA=ON; GPU kernels not tested\n";
        return kSkip;
    }
    if (gpu_count() == 0) {
        std::cout << "SKIP: no GPU is visible; GPU kernels compiled but not run\n";
        return kSkip;
    }
    const char* v = std::getenv("TRA_GPU");
    const GpuInfo gpu = use_gpu(v ? std::atoi(v) : 0);
    std::cout << "testing on GPU " << gpu.index << " (" << gpu.name << ")\n";
    return tra::testing::run_test_cases(argc, argv);
}
