// The lanes product (kernels/lanes_gemm.hpp) against a naive loop: f32 and f64, the CPU's
// instruction set and the portable loops, lane counts that fill vectors and that leave tails,
// extents around the packing blocks, operands at any strides (transposed, with a batch label
// outside the lanes, lanes apart), written and accumulated, on 1 and 2 threads with identical bits.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "kernels/lanes_gemm.hpp"
#include "kernels/lanes_panels.hpp"
#include "kernels/lanes_tiles.hpp"
#include "kernels/parallel_for.hpp"

using tra::kernels::cpu::LanesGemm;
using tra::kernels::cpu::LanesIsa;

namespace {

// A row-major m x k x lanes operand A, k x n x lanes B and m x n x lanes C; `transposed` lays
// A out k x m x lanes and B n x k x lanes instead.
LanesGemm dense(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t lanes,
                bool transposed = false) {
    LanesGemm g{m, n, k, lanes};
    g.a_rows = transposed ? lanes : k * lanes;
    g.a_cols = transposed ? m * lanes : lanes;
    g.b_rows = transposed ? lanes : n * lanes;
    g.b_cols = transposed ? k * lanes : lanes;
    g.c_rows = n * lanes;
    g.c_cols = lanes;
    return g;
}

template <class T>
std::vector<T> random_values(std::int64_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<T> v(static_cast<std::size_t>(n));
    for (T& x : v) x = static_cast<T>(dist(gen));
    return v;
}

// C as lanes_gemm computes it from `c0` (written over unless `accumulate`).
template <class T>
std::vector<double> naive(const LanesGemm& g, const std::vector<T>& a, const std::vector<T>& b,
                          const std::vector<T>& c0, bool accumulate) {
    std::vector<double> c(c0.begin(), c0.end());
    for (std::int64_t i = 0; i < g.m; ++i)
        for (std::int64_t j = 0; j < g.n; ++j)
            for (std::int64_t l = 0; l < g.lanes; ++l) {
                double sum = 0;
                for (std::int64_t p = 0; p < g.k; ++p)
                    sum += double(a[i * g.a_rows + p * g.a_cols + l * g.a_lanes]) *
                           double(b[p * g.b_rows + j * g.b_cols + l * g.b_lanes]);
                double& out = c[i * g.c_rows + j * g.c_cols + l];
                out = accumulate ? out + sum : sum;
            }
    return c;
}

template <class T>
void check(const LanesGemm& g, std::int64_t a_size, std::int64_t b_size, std::int64_t c_size) {
    const std::vector<T> a = random_values<T>(a_size, 1), b = random_values<T>(b_size, 2),
                         c0 = random_values<T>(c_size, 3);
    const double tol = sizeof(T) == 4 ? 1e-4 : 1e-12;
    for (bool accumulate : {false, true})
        for (LanesIsa isa : {LanesIsa::best, LanesIsa::portable}) {
            INFO("m " << g.m << " n " << g.n << " k " << g.k << " lanes " << g.lanes
                      << (sizeof(T) == 4 ? " f32" : " f64") << (accumulate ? " accumulated" : "")
                      << (isa == LanesIsa::portable ? " portable" : ""));
            const std::vector<double> want = naive(g, a, b, c0, accumulate);
            std::vector<T> first;
            for (int threads : {1, 2}) {
                tra::kernels::set_kernel_threads(threads);
                std::vector<T> c = c0;
                tra::kernels::cpu::lanes_gemm<T>(g, a.data(), b.data(), c.data(), accumulate, isa);
                for (std::size_t i = 0; i < c.size(); ++i)
                    REQUIRE(std::abs(double(c[i]) - want[i]) <=
                            tol * (static_cast<double>(g.k) + std::abs(want[i])));
                if (threads == 1)
                    first = c;
                else
                    CHECK(c == first);  // the same bits whatever the thread count
            }
            tra::kernels::set_kernel_threads(1);
        }
}

template <class T>
void check_dense(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t lanes,
                 bool transposed = false) {
    check<T>(dense(m, n, k, lanes, transposed), m * k * lanes, k * n * lanes, m * n * lanes);
}

}  // namespace

TEST_CASE("lanes product: lane counts that fill vectors and leave tails", "[lanes]") {
    // 72: several vectors of lanes (lanes_tiles.hpp, W), the last partial.
    for (std::int64_t lanes : {1, 3, 4, 5, 8, 13, 16, 17, 24, 40, 72}) {
        check_dense<double>(7, 9, 11, lanes);
        check_dense<float>(7, 9, 11, lanes);
    }
}

TEST_CASE("lanes product: extents around the register tile and packing blocks", "[lanes]") {
    // Register tiles of 3 x 4 (AVX2, portable) or 6 x 4 (AVX-512), row blocks of up to 96, inner
    // blocks of 64 (AVX2, portable) or 32 (AVX-512).
    check_dense<double>(1, 1, 1, 8);
    check_dense<double>(13, 9, 33, 8);
    check_dense<double>(7, 5, 65, 8);
    check_dense<float>(6, 4, 63, 16);
    check_dense<double>(2, 3, 5, 8);
    check_dense<double>(47, 5, 127, 8);
    check_dense<double>(49, 6, 129, 4);
    check_dense<float>(50, 13, 260, 16);
    check_dense<double>(97, 70, 3, 12);
    check_dense<double>(193, 9, 5, 8);
    // 8.6 Mflop: two threads take a block of C's rows each (AVX-512: 2 blocks of 66 rows and
    // one of 61 on one thread, 4 of 54 on two).
    check_dense<double>(193, 40, 70, 8);
    check_dense<double>(11, 3, 2, 8);  // rows 6 + 5: one full AVX-512 tile and one short one
    check_dense<float>(13, 5, 7, 16);
}

TEST_CASE("lanes product: threads only where each gets enough work", "[lanes]") {
    using tra::kernels::cpu::lanes::TaskGrid;
    using Geometry = tra::kernels::cpu::lanes::Narrow<double>;
    const auto threads = [](std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t lanes,
                            std::int64_t most) {
        return TaskGrid<Geometry, double>(dense(m, n, k, lanes), most).threads;
    };
    CHECK(threads(64, 64, 64, 8, 2) == 2);    // 4.2 Mflop: 2 x 2^21
    CHECK(threads(64, 64, 32, 8, 2) == 1);    // 2.1 Mflop
    CHECK(threads(32, 32, 32, 64, 2) == 1);   // 4.2 Mflop, but blocks of 16 rows
    CHECK(threads(32, 32, 512, 64, 2) == 2);  // 67 Mflop: rows no longer matter
    CHECK(threads(2, 2048, 600, 8, 4) == 4);  // 39 Mflop in column ranges
    CHECK(threads(256, 256, 256, 64, 16) == 16);
    CHECK(threads(256, 256, 256, 64, 1) == 1);
    // The scratch figure follows: one loop's panels where the product runs on one thread.
    CHECK(tra::kernels::cpu::lanes_gemm_scratch_bytes<double>(dense(64, 64, 32, 8), 2) ==
          tra::kernels::cpu::lanes_gemm_scratch_bytes<double>(dense(64, 64, 32, 8), 1));
}

TEST_CASE("lanes product: transposed operands and a batch label outside the lanes", "[lanes]") {
    check_dense<double>(6, 5, 9, 8, true);
    check_dense<float>(13, 7, 130, 11, true);
    // C[i, b, j, l] = sum_p A[b, i, p, l] B[p, j, b, l] for one b: strides of the whole tensors.
    const std::int64_t batch = 3, m = 5, n = 6, k = 7, lanes = 9;
    LanesGemm g{m, n, k, lanes};
    g.a_rows = k * lanes, g.a_cols = lanes;                  // A [b][i][p][l]
    g.b_rows = n * batch * lanes, g.b_cols = batch * lanes;  // B [p][j][b][l]
    g.c_rows = batch * n * lanes, g.c_cols = lanes;          // C [i][b][j][l]
    check<double>(g, batch * m * k * lanes, k * n * batch * lanes, m * batch * n * lanes);
}

TEST_CASE("lanes product: operands with their lanes apart", "[lanes]") {
    // A [i][l][p] and B [p][l][j] (attention's shd and thd with the heads as lanes), C [i][j][l];
    // lane counts that fill vectors and leave tails, two groups of A's rows.
    for (const std::int64_t lanes : {8, 11, 16}) {
        const std::int64_t m = 100, n = 9, k = 70;
        LanesGemm g{m, n, k, lanes};
        g.a_rows = lanes * k, g.a_cols = 1, g.a_lanes = k;
        g.b_rows = lanes * n, g.b_cols = 1, g.b_lanes = n;
        g.c_rows = n * lanes, g.c_cols = lanes;
        check<double>(g, m * k * lanes, k * n * lanes, m * n * lanes);
        check<float>(g, m * k * lanes, k * n * lanes, m * n * lanes);
    }
}

TEST_CASE("lanes product: B's packed rows in several parts, lanes in groups, empty sums",
          "[lanes]") {
    // 32 MiB of packed B hold 256 rows of 2048 f64 columns x 8 lanes (AVX-512: one vector,
    // Kc 32; AVX2 and portable: two, Kc 64): 600 rows take three parts.
    check_dense<double>(2, 2048, 600, 8);
    // Kc rows of 2048 columns take 4 MiB per vector: 8 vectors fit, so 72 lanes are packed in
    // two groups (AVX-512, 8 lanes a vector) or three (AVX2, portable: 4); the 8 vectors of a
    // group take their 40 rows in two parts on AVX-512 (32 rows of them fill the 32 MiB).
    check_dense<double>(2, 2048, 40, 72);
    // k = 0: C is zeros, or unchanged when accumulating.
    const LanesGemm g = dense(3, 4, 0, 8);
    std::vector<double> c(3 * 4 * 8, 5.0);
    tra::kernels::cpu::lanes_gemm<double>(g, nullptr, nullptr, c.data(), true);
    CHECK(c == std::vector<double>(c.size(), 5.0));
    tra::kernels::cpu::lanes_gemm<double>(g, nullptr, nullptr, c.data(), false);
    CHECK(c == std::vector<double>(c.size(), 0.0));
}
