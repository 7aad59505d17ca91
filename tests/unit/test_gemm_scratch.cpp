// The scratch memory the einsum kernel's GEMM plans hold (kernels::cpu::gemm_scratch), which the
// peak-memory model adds beside the tiles (ia/kernel_scratch.hpp): hand counts for TTGT's
// permuted copies, and the kernel's own allocation measured against the figure.
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "core/host_mappings.hpp"
#include "kernels/einsum_gemm.hpp"
#include "kernels/lanes_gemm.hpp"
#include "kernels/parallel_for.hpp"
#include "kernels/scratch_held.hpp"

using namespace tra;
using kernels::cpu::GemmPlan;
using kernels::cpu::GemmScratch;

namespace {

std::vector<std::int64_t> extents(const std::map<char, std::int64_t>& of) {
    std::vector<std::int64_t> e(26, 1);
    for (const auto& [c, x] : of) e[static_cast<std::size_t>(c - 'a')] = x;
    return e;
}

}  // namespace

TEST_CASE("gemm scratch: none where BLAS reads the operands in place", "[gemm_scratch]") {
    const auto e = extents({{'i', 64}, {'j', 32}, {'k', 48}, {'b', 4}});
    for (const auto& [a, b, o] : {std::array<std::string, 3>{"ij", "jk", "ik"},
                                  {"ji", "kj", "ki"},        // transposed operands and product
                                  {"bij", "bjk", "bik"},     // batch first
                                  {"ibj", "jbk", "ibk"}}) {  // batch in the middle: strided
        const GemmPlan p = kernels::cpu::plan_gemm(a, b, o, e);
        CHECK(p.permuted_elements() == 0);
        CHECK(kernels::cpu::gemm_scratch(p, DType::F64, 1) == GemmScratch{});
    }
}

TEST_CASE("gemm scratch: TTGT holds a permuted copy of what it permutes", "[gemm_scratch]") {
    // 4-D: a and b of A's rows are split by c, so A is permuted; B (dcef) and the product
    // (feab) alike. Every label 8: 4096 elements each.
    const auto e = extents({{'a', 8}, {'b', 8}, {'c', 8}, {'d', 8}, {'e', 8}, {'f', 8}});
    const GemmPlan p = kernels::cpu::plan_gemm("acbd", "dcef", "feab", e);
    REQUIRE(p.lanes == 1);
    const GemmScratch f64 = kernels::cpu::gemm_scratch(p, DType::F64, 1);
    CHECK(f64.permuted_a == (p.a.perm.empty() ? 0 : 4096 * 8));
    CHECK(f64.permuted_b == (p.b.perm.empty() ? 0 : 4096 * 8));
    CHECK(f64.permuted_out == (p.out.perm.empty() ? 0 : 4096 * 8));
    CHECK(f64.panels == 0);
    CHECK(f64.total() == p.permuted_elements() * 8);
    CHECK(f64.total() > 0);
    const GemmScratch f32 = kernels::cpu::gemm_scratch(p, DType::F32, 1);
    CHECK(f32.total() * 2 == f64.total());
    // The GPU's canonical plan permutes all three here.
    const GemmPlan all = kernels::cpu::plan_gemm(
        "ijb", "jkb", "ikb", extents({{'i', 8}, {'j', 16}, {'k', 4}, {'b', 2}}), true);
    CHECK(kernels::cpu::gemm_scratch(all, DType::F64, 1) ==
          GemmScratch{8 * 16 * 2 * 8, 16 * 4 * 2 * 8, 8 * 4 * 2 * 8, 0});
}

TEST_CASE("gemm scratch: the lanes product's panels, by its thread count", "[gemm_scratch]") {
    const auto e = extents({{'i', 64}, {'j', 64}, {'k', 64}, {'b', 16}});
    const GemmPlan p = kernels::cpu::plan_gemm("ijb", "jkb", "ikb", e);
    REQUIRE(p.lanes == 16);
    for (const int threads : {1, 2, 4}) {
        const GemmScratch s = kernels::cpu::gemm_scratch(p, DType::F64, threads);
        CHECK(s.permuted_a + s.permuted_b + s.permuted_out == 0);
        kernels::cpu::LanesGemm g{64, 64, 64, 16};
        g.a_rows = 64 * 16, g.a_cols = 16, g.b_rows = 64 * 16, g.b_cols = 16;
        g.c_rows = 64 * 16, g.c_cols = 16;
        CHECK(s.panels == kernels::cpu::lanes_gemm_scratch_bytes<double>(g, threads));
        // At least B's packed rows (64 x 64 positions of 16 lanes) and A's block.
        CHECK(s.panels >= 2 * 64 * 64 * 16 * 8);
    }
    CHECK(kernels::cpu::gemm_scratch(p, DType::F64, 2).panels >=
          kernels::cpu::gemm_scratch(p, DType::F64, 1).panels);
    // An empty sum touches no scratch.
    const GemmPlan empty = kernels::cpu::plan_gemm(
        "ijb", "jkb", "ikb", extents({{'i', 64}, {'j', 0}, {'k', 64}, {'b', 16}}));
    CHECK(kernels::cpu::gemm_scratch(empty, DType::F64, 1) == GemmScratch{});
}

TEST_CASE("gemm scratch: what the kernel maps for TTGT is what the figure says", "[gemm_scratch]") {
    // Large enough that each permuted copy is a host mapping of its own (host_mappings.hpp):
    // every label 16, 16^4 f64 = 512 KiB per tensor.
    const auto e = extents({{'a', 16}, {'b', 16}, {'c', 16}, {'d', 16}, {'e', 16}, {'f', 16}});
    const GemmPlan p = kernels::cpu::plan_gemm("acbd", "dcef", "feab", e);
    const GemmScratch want = kernels::cpu::gemm_scratch(p, DType::F64, 1);
    REQUIRE(want.total() > 0);
    std::size_t mapped = 0;
    for (const std::int64_t bytes : {want.permuted_a, want.permuted_b, want.permuted_out})
        if (bytes > 0) mapped += host_mappings::length_for(static_cast<std::size_t>(bytes));
    const std::vector<double> x(16 * 16 * 16 * 16, 0.5), y(x);
    std::vector<double> z(x.size());
    // On a thread of its own: the scratch is the calling thread's, freed when it ends.
    std::size_t live_before = 0, live_after = 0;
    std::int64_t held_before = 0, held_after = 0;
    std::thread([&] {
        live_before = host_mappings::usage().live;
        held_before = kernels::scratch_bytes_held();
        kernels::cpu::run_gemm_plan<double>(p, x.data(), y.data(), z.data(), false);
        live_after = host_mappings::usage().live;
        held_after = kernels::scratch_bytes_held();
        // A second call of the same plan takes no more.
        kernels::cpu::run_gemm_plan<double>(p, x.data(), y.data(), z.data(), false);
        CHECK(kernels::scratch_bytes_held() == held_after);
    }).join();
    CHECK(live_after - live_before == mapped);
    CHECK(held_after - held_before == want.total());      // what the runtime measures
    CHECK(kernels::scratch_bytes_held() == held_before);  // the thread's buffers went with it
    CHECK(z[0] == 16 * 16 * 0.25);  // each element sums c and d: 256 products of 0.25
}

TEST_CASE("gemm scratch: what the lanes product keeps is what the figure says", "[gemm_scratch]") {
    const auto e = extents({{'i', 40}, {'j', 24}, {'k', 56}, {'b', 24}});
    const GemmPlan p = kernels::cpu::plan_gemm("ijb", "jkb", "ikb", e);
    REQUIRE(p.lanes == 24);
    const std::vector<double> x(40 * 24 * 24, 0.5), y(24 * 56 * 24, 0.5);
    std::vector<double> z(40 * 56 * 24);
    std::int64_t grew = 0;
    std::thread([&] {
        const std::int64_t before = kernels::scratch_bytes_held();
        kernels::cpu::run_gemm_plan<double>(p, x.data(), y.data(), z.data(), false);
        grew = kernels::scratch_bytes_held() - before;
    }).join();
    CHECK(grew == kernels::cpu::gemm_scratch(p, DType::F64, kernels::kernel_threads()).total());
    CHECK(grew > 0);
    CHECK(z[0] == 24 * 0.25);
}
