// Every registry kernel on the GPU against its CPU implementation: same operands, results equal
// within the dtype's tolerance. Exits 77 (CTest's skip) with a message when this build has no
// GPU backend or no GPU is visible.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cmath>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

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
    for (const char* op : {"relu", "relu_grad", "sigmoid", "tanh", "exp"}) c[op] = {on({m})};
    c["log"] = {on({m}, {}, 0.1, 3.0)};
    for (const char* op : {"row_sum", "col_sum", "softmax_rows", "transpose"})
        c[op] = {on({m}), on({{1000, 3}}), on({{3, 1000}})};
    c["diag"] = {on({{70, 70}})};
    Case argmin = on({{13, 700}});
    argmin.where = {Key{1, 2}, Frontier{3, 4}};
    c["argmin"] = {argmin};
    c["min_index"] = {on({{2}, {2}})};
    c["einsum"] = {einsum("ik,kj->ij", "mul", "add", {{40, 30}, {30, 20}}),
                   einsum("ki,jk->ji", "mul", "add", {{30, 40}, {20, 30}}),
                   einsum("ik,kj->ij", "add", "min", {{40, 30}, {30, 20}}),
                   einsum("ijk,jk->i", "sub", "max", {{6, 5, 4}, {5, 4}}),
                   einsum("ij->ji", "mul", "add", {{7, 9}}),
                   einsum("ij->i", "mul", "mul", {{7, 9}}),
                   einsum("ij,j->ij", "div", "add", {{7, 9}, {9}})};
    return c;
}

Tile random_tile(DType d, const Shape& shape, double lo, double hi, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> dist(lo, hi);
    Tile t(d, shape);
    for (std::int64_t i = 0; i < t.elements(); ++i) t.set(i, dist(gen));
    return t;
}

// numpy.allclose's rule with tra diff's defaults per dtype (docs/cli.md).
void require_close(const Tile& gpu, const Tile& cpu, const std::string& what) {
    REQUIRE(gpu.shape() == cpu.shape());
    const bool f32 = cpu.dtype() == DType::F32;
    const double rtol = f32 ? 1e-4 : 1e-9, atol = f32 ? 1e-5 : 1e-12;
    for (std::int64_t i = 0; i < cpu.elements(); ++i) {
        const double x = gpu.get(i), y = cpu.get(i);
        if (std::isnan(x) && std::isnan(y)) continue;
        INFO(what << " element " << i << ": gpu " << x << " cpu " << y);
        REQUIRE(std::fabs(x - y) <= atol + rtol * std::fabs(y));
    }
}

}  // namespace

TEST_CASE("every kernel on the GPU equals its CPU implementation", "[gpu]") {
    const auto all = cases();
    for (const Kernel* k : all_kernels()) {
        INFO("kernel " << k->name);
        REQUIRE(all.count(k->name) == 1);  // a new kernel needs a case here
        for (const Case& c : all.at(k->name))
            for (DType d : {DType::F32, DType::F64}) {
                const KernelCall call(k->name, c.params);
                std::vector<Tile> host, device;
                unsigned seed = 1;
                for (const Shape& s : c.shapes) {
                    host.push_back(random_tile(d, s, c.lo, c.hi, seed++));
                    device.push_back(host.back().to(Residence::Device));
                }
                std::vector<const Tile*> h, g;
                for (std::size_t i = 0; i < host.size(); ++i) {
                    h.push_back(&host[i]);
                    g.push_back(&device[i]);
                }
                const Tile want = call.apply(h, c.where);
                const Tile got = call.apply(g, c.where);
                REQUIRE(got.on_device());
                require_close(got.to(Residence::Host), want, call.str() + " " + name_of(d));
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
    return Catch::Session().run(argc, argv);
}
