// The einsum kernel's scratch in the peak-memory model (ia/kernel_scratch.hpp,
// ia/peak_memory.hpp): each join's call scratch is its GEMM plan's as the kernel plans it, kept
// buffers grow to the largest need per kind and dtype and stay, a call's own scratch lives
// while it runs. Expected values are hand counts.
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "ia/gemm_pricing.hpp"
#include "ia/kernel_scratch.hpp"
#include "ia/peak_memory.hpp"
#include "optimizer/planner.hpp"
#include "optimizer/search.hpp"
#include "workflow/workflow_loader.hpp"

using namespace tra;
using namespace tra::ia;

namespace {

// A workflow's program from its text.
Program program_of(const std::string& name, const std::string& text) {
    const std::filesystem::path file = std::filesystem::temp_directory_path() / (name + ".yaml");
    std::ofstream(file) << text;
    Program p = workflow::load_workflow(file.string());
    std::filesystem::remove(file);
    return p;
}

// abcd-by-cdef with A's rows (a, b) split by c: TTGT permutes A whatever the plan. Tiles 8^4.
Program four_d() {
    return program_of("kernel_scratch_4d", R"(name: k4
inputs:
  A: {shape: [16, 16, 16, 16], tile: [8, 8, 8, 8], generate: {uniform: [-1, 1], seed: 1}}
  B: {shape: [16, 16, 16, 16], tile: [8, 8, 8, 8], generate: {uniform: [-1, 1], seed: 2}}
program:
  - Z: {einsum: "acbd,dcef->feab", inputs: [A, B]}
outputs:
  Z: {file: out/Z.h5}
)");
}

const JoinOp* join_of(const Plan& plan, IaNodeId i) {
    const IaNode& n = plan.node(i);
    if (n.op != IaOp::LocalJoin || !n.logical) return nullptr;
    return std::get_if<JoinOp>(&*n.logical);
}

}  // namespace

TEST_CASE("kernel scratch: a join's is its GEMM plan's, as the kernel plans it", "[scratch]") {
    const Program p = four_d();
    const MachineProfile& profile = default_machine_profile();
    const ProfileGemmPricing pricing(profile);
    for (const optimizer::RankedPlan& r : optimizer::search_plans(p, 2)) {
        INFO(r.name);
        const PlanScratch scratch = kernel_scratch(r.plan, profile);
        REQUIRE(scratch.size() == r.plan.size());
        int joins = 0;
        for (IaNodeId i = 0; i < r.plan.size(); ++i) {
            const JoinOp* join = join_of(r.plan, i);
            if (!join) {
                CHECK(!scratch[i]);
                continue;
            }
            ++joins;
            const Shape shapes[] = {Shape{8, 8, 8, 8}, Shape{8, 8, 8, 8}};
            const auto gemm = einsum_gemm_plan(join->kernel, shapes, pricing, DType::F64);
            REQUIRE(gemm);
            REQUIRE(scratch[i]);
            CHECK(scratch[i]->dtype == DType::F64);
            CHECK(scratch[i]->call.kept ==
                  kernels::cpu::gemm_scratch(*gemm, DType::F64, profile.blas_threads));
            CHECK(scratch[i]->call.kept.permuted_a == 8 * 8 * 8 * 8 * 8);  // A: one tile
            CHECK(scratch[i]->call.during_call == 0);
        }
        CHECK(joins == 1);
        CHECK(any_scratch(scratch));
        // Kept from the join to the end: the peak grows by at most the scratch.
        const std::vector<std::int64_t> plain = peak_per_site(r.plan);
        const std::vector<std::int64_t> with = peak_per_site(r.plan, {}, {}, &scratch);
        for (std::size_t s = 0; s < plain.size(); ++s) {
            CHECK(with[s] >= plain[s]);
            CHECK(with[s] <= plain[s] + 3 * 8 * 8 * 8 * 8 * 8);
        }
    }
}

TEST_CASE("kernel scratch: none for products BLAS reads in place", "[scratch]") {
    const Program p = workflow::load_workflow(TRA_SOURCE_DIR "/plans/examples/matmul.yaml");
    for (const optimizer::RankedPlan& r : optimizer::search_plans(p, 2)) {
        const PlanScratch scratch = kernel_scratch(r.plan, default_machine_profile());
        CHECK(!any_scratch(scratch));
        CHECK(peak_per_site(r.plan, {}, {}, &scratch) == peak_per_site(r.plan));
    }
}

TEST_CASE("kernel scratch: an operand summed first lives through its call", "[scratch]") {
    kernels::KernelParams params;
    params.spec = "ijx,jk->ik";  // x summed inside A alone: A becomes [i, j] first
    const kernels::KernelCall call("einsum", params);
    const Shape shapes[] = {Shape{4, 5, 3}, Shape{5, 6}};
    const ProfileGemmPricing pricing(default_machine_profile());
    for (const DType dtype : {DType::F32, DType::F64}) {
        const CallScratch s = einsum_call_scratch(call, shapes, pricing, dtype, 1);
        CHECK(s.during_call == 4 * 5 * static_cast<std::int64_t>(size_of(dtype)));
        CHECK(s.kept == kernels::cpu::GemmScratch{});  // ij,jk->ik: BLAS reads it in place
    }
    params.join_op = "add";  // no product: no GEMM plan, no scratch
    params.agg_op = "max";
    const CallScratch none =
        einsum_call_scratch(kernels::KernelCall("einsum", params), shapes, pricing, DType::F64, 1);
    CHECK(none.kept.total() == 0);
    CHECK(none.during_call == 0);
}

TEST_CASE("kernel scratch: kept buffers grow to the largest need, per kind and dtype",
          "[scratch]") {
    const Program p = four_d();
    const optimizer::RankedPlan r = optimizer::search_plans(p, 2).front();
    const Plan& plan = r.plan;
    REQUIRE(plan.size() >= 3);
    // Made-up needs on the first three nodes (held where each leaves tiles).
    PlanScratch scratch(plan.size());
    scratch[0] = NodeScratch{DType::F64, {{1000, 0, 0, 0}, 0}};
    scratch[1] = NodeScratch{DType::F64, {{600, 0, 50, 0}, 7}};
    scratch[2] = NodeScratch{DType::F32, {{0, 0, 0, 5}, 0}};
    const auto holds = [&](IaNodeId i, std::size_t site) {
        return plan.node(i).cost.resident.at(site) > 0;
    };
    HeldScratch held(plan, &scratch);
    for (std::size_t s = 0; s < 2; ++s) CHECK(held.kept(s) == 0);
    held.run(0);
    for (std::size_t s = 0; s < 2; ++s) CHECK(held.while_running(s) == (holds(0, s) ? 1000 : 0));
    held.run(1);
    for (std::size_t s = 0; s < 2; ++s) {
        const std::int64_t a = holds(0, s) ? 1000 : holds(1, s) ? 600 : 0;  // the larger A
        const std::int64_t out = holds(1, s) ? 50 : 0;
        CHECK(held.kept(s) == a + out);
        CHECK(held.while_running(s) == a + out + (holds(1, s) ? 7 : 0));
    }
    held.run(2);  // f32's buffers are others
    for (std::size_t s = 0; s < 2; ++s) {
        const std::int64_t f64 = (holds(0, s)   ? 1000
                                  : holds(1, s) ? 600
                                                : 0) +
                                 (holds(1, s) ? 50 : 0);
        CHECK(held.kept(s) == f64 + (holds(2, s) ? 5 : 0));
        CHECK(held.while_running(s) == held.kept(s));  // node 1's call is over
    }
    // Kept from the first node on, a need larger than any tile shows on every site that holds
    // the first node's tiles, beside the peak of the tiles alone.
    const std::int64_t big = std::int64_t{1} << 40;
    PlanScratch first(plan.size());
    first[0] = NodeScratch{DType::F64, {{big, 0, 0, 0}, 0}};
    const std::vector<std::int64_t> plain = peak_per_site(plan);
    const std::vector<std::int64_t> with = peak_per_site(plan, {}, {}, &first);
    for (std::size_t s = 0; s < 2; ++s) CHECK(with[s] == plain[s] + (holds(0, s) ? big : 0));
}

TEST_CASE("kernel scratch: the planner's peaks and memory budget count it", "[scratch]") {
    optimizer::PlanRequest request;
    request.sites = 1;
    const optimizer::RankedPlans ranked = optimizer::rank_plans(four_d(), request);
    REQUIRE(!ranked.plans.empty());
    std::int64_t least_plain = std::numeric_limits<std::int64_t>::max();
    int grown = 0;
    for (const optimizer::RankedPlan& r : ranked.plans) {
        INFO(r.name);
        const PlanScratch scratch = kernel_scratch(r.plan, request.time.profile);
        CHECK(r.totals.peak_per_site == peak_per_site(r.plan, {}, {}, &scratch));
        const std::int64_t plain = peak_per_site(r.plan).at(0);
        CHECK(r.totals.peak_bytes >= plain);
        grown += r.totals.peak_bytes > plain;  // the join's permuted copies on top of its tiles
        least_plain = std::min(least_plain, plain);
    }
    CHECK(grown > 0);  // not where the peak comes before the join (rmm's replicas)
    // A budget the tiles alone would fit leaves no plan.
    request.memory_per_site = least_plain;
    CHECK_THROWS_WITH(optimizer::rank_plans(four_d(), request),
                      Catch::Contains("no plan fits in --memory-per-site"));
}

TEST_CASE("kernel scratch: on the GPU, the canonical plan's copies through each call",
          "[scratch]") {
    // acbd,dcef->feab on 8^4 tiles: cuBLAS writes Z in place as the product [fe][ab] of B read
    // as [fe][cd] and A as [cd][ab]: both operands are permuted into device buffers of 8^4 f64.
    const std::int64_t copy = 8 * 8 * 8 * 8 * 8;
    kernels::KernelParams params;
    params.spec = "acbd,dcef->feab";
    const Shape shapes[] = {Shape{8, 8, 8, 8}, Shape{8, 8, 8, 8}};
    const CallScratch gpu =
        einsum_call_scratch_on_gpu(kernels::KernelCall("einsum", params), shapes, DType::F64);
    CHECK(gpu.kept == kernels::cpu::GemmScratch{});
    CHECK(gpu.during_call == 2 * copy);
    // In canonical order nothing is copied; an operand summed first still lives through the call.
    params.spec = "ijx,jk->ik";
    const Shape summed[] = {Shape{4, 5, 3}, Shape{5, 6}};
    CHECK(einsum_call_scratch_on_gpu(kernels::KernelCall("einsum", params), summed, DType::F32)
              .during_call == 4 * 5 * 4);

    // The planner's peaks for tiles on the device: each join's copies on top of what the sites
    // hold while it runs, none kept after.
    optimizer::PlanRequest request;
    request.sites = 2;
    request.tiles = Residence::Device;
    const optimizer::RankedPlans ranked = optimizer::rank_plans(four_d(), request);
    REQUIRE(!ranked.plans.empty());
    int unlike_cpu = 0;  // plans whose peaks with the CPU kernels' scratch differ
    for (const optimizer::RankedPlan& r : ranked.plans) {
        INFO(r.name);
        const PlanScratch on_cpu = kernel_scratch(r.plan, request.time.profile);
        unlike_cpu += r.totals.peak_per_site != peak_per_site(r.plan, {}, {}, &on_cpu);
        const PlanScratch on_gpu =
            kernel_scratch(r.plan, request.time.profile, nullptr, 0, Residence::Device);
        for (const std::optional<NodeScratch>& s : on_gpu)
            if (s) {
                CHECK(s->call.kept.total() == 0);
                CHECK(s->call.during_call == 2 * copy);
            }
        CHECK(r.totals.peak_per_site == peak_per_site(r.plan, {}, {}, &on_gpu));
        const std::vector<std::int64_t> plain = peak_per_site(r.plan);
        for (std::size_t s = 0; s < plain.size(); ++s) {
            CHECK(r.totals.peak_per_site[s] >= plain[s]);
            CHECK(r.totals.peak_per_site[s] <= plain[s] + 2 * copy);
        }
    }
    CHECK(unlike_cpu > 0);
}
