// The large tiles a rank reserves before its first operator (runtime/tile_reservation.hpp),
// counted by hand on the initial plan of a matrix product.
#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>
#include <vector>

#include "core/host_mappings.hpp"
#include "ia/fused_joins.hpp"
#include "ia/initial_plan.hpp"
#include "ia/kernel_scratch.hpp"
#include "ia/peak_memory.hpp"
#include "ia/plan_costs.hpp"
#include "ia/verification_plan.hpp"
#include "optimizer/search.hpp"
#include "program_fixtures.hpp"
#include "runtime/tile_reservation.hpp"
#include "tra/program_builder.hpp"

namespace {

using namespace tra;
using kernels::KernelCall;
using tra::testing::at;
using tra::testing::generated;

// C = A B with A, B of n x n in tiles of t x t.
Program matmul(std::int64_t n, std::int64_t t) {
    ProgramBuilder b("mm", DType::F64);
    b.add_input("A", Shape{n, n}, Shape{t, t}, DType::F64, generated(), at("A"));
    b.add_input("B", Shape{n, n}, Shape{t, t}, DType::F64, generated(), at("B"));
    b.add_join("AB", "A", "B", {1}, {0}, KernelCall("matmul"), at("AB"));
    b.add_aggregate("C", "AB", {0, 2}, KernelCall("add"), at("C"));
    b.add_output("C", "out.h5", "/C", at("out"));
    return b.finish();
}

}  // namespace

TEST_CASE("a rank reserves one mapping per large tile alive at its peak") {
    // 2 x 2 tiles of 8 MiB on 2 sites, in the initial plan: A, B (2 tiles per site), bcast A (4),
    // the join AB (8 products, 4 per site), the shuffle of its partials and C. At the join B,
    // bcast A and AB are alive (A is freed after the bcast): 2 + 4 + 4 = 10 tiles.
    const Program prog = matmul(2048, 1024);
    ia::Plan plan = ia::compile_initial(prog, 2);
    const ia::PlanTotals totals = ia::annotate_costs(plan);
    const std::size_t tile = host_mappings::length_for(1024 * 1024 * 8);
    for (int site = 0; site < 2; ++site) {
        const auto lengths = runtime::tile_mappings_at_peak(plan, site);
        CHECK(lengths == std::vector<std::size_t>(10, tile));
        const std::size_t sum = std::accumulate(lengths.begin(), lengths.end(), std::size_t{0});
        CHECK(static_cast<std::int64_t>(sum) <=
              totals.peak_per_site[static_cast<std::size_t>(site)]);
    }
}

TEST_CASE("a plan of small tiles reserves nothing") {
    const Program prog = matmul(64, 16);  // the plan refers to it
    ia::Plan plan = ia::compile_initial(prog, 2);
    ia::annotate_costs(plan);
    CHECK(runtime::tile_mappings_at_peak(plan, 0).empty());
    CHECK(runtime::tile_mappings_at_peak(plan, 1).empty());
}

TEST_CASE("a fused join reserves its sums' tiles, not its products'") {
    // bcast-left on 2 sites: each site holds one column of B (2 tiles), all of A after the bcast
    // (4) and its column of C (2); the 4 products of its column are summed in place and never
    // held (8 tiles, where the join's products as tiles would make 10).
    const Program prog = matmul(2048, 1024);
    optimizer::SearchOptions options;
    options.top_k = 1000;
    bool found = false;
    for (const auto& r : optimizer::search_plans(prog, 2, options)) {
        if (r.name != "AB=bcast-left,C=local") continue;
        found = true;
        const auto fused = ia::fused_joins(r.plan);
        CHECK(std::count(fused.begin(), fused.end(), std::nullopt) + 1 ==
              static_cast<std::ptrdiff_t>(fused.size()));
        const std::size_t tile = host_mappings::length_for(1024 * 1024 * 8);
        for (int site = 0; site < 2; ++site)
            CHECK(runtime::tile_mappings_at_peak(r.plan, site) ==
                  std::vector<std::size_t>(8, tile));
    }
    CHECK(found);
}

TEST_CASE("a verifying rank also reserves what its checks keep and recompute whole") {
    // D = relu(A) and G = relu(B), outputs, 2 x 2 tiles of 8 MiB each on 2 sites: each site
    // holds 2 tiles of each relation. Running, A is freed after D's map: at most 6 tiles are
    // alive at once. Verifying, A and B stay for the checks: 8 at the end. A check that
    // recomputes its output whole allocates it beside them (10); maps are recomputed a few
    // tiles at a time, reusing the memory each chunk frees, so nothing is reserved for them.
    ProgramBuilder b("relus", DType::F64);
    b.add_input("A", Shape{2048, 2048}, Shape{1024, 1024}, DType::F64, generated(), at("A"));
    b.add_input("B", Shape{2048, 2048}, Shape{1024, 1024}, DType::F64, generated(), at("B"));
    b.add_transform("D", "A", KernelCall("relu"), at("D"));
    b.add_transform("G", "B", KernelCall("relu"), at("G"));
    b.add_output("D", "out.h5", "/D", at("out"));
    b.add_output("G", "out.h5", "/G", at("out"));
    const Program prog = b.finish();
    ia::Plan plan = ia::compile_initial(prog, 2);
    ia::annotate_costs(plan);
    const ia::VerificationPlan v = ia::plan_verification(plan);
    for (const ia::OutputCheck& c : v.checks) CHECK(c.in_chunks);
    ia::VerificationPlan whole = v;
    for (ia::OutputCheck& c : whole.checks) c.in_chunks = false;
    const auto peak = ia::peak_per_site(plan, v.kept, v.scratch_per_site);
    const std::size_t tile = host_mappings::length_for(1024 * 1024 * 8);
    for (int site = 0; site < 2; ++site) {
        CHECK(runtime::tile_mappings_at_peak(plan, site) == std::vector<std::size_t>(6, tile));
        CHECK(runtime::tile_mappings_at_peak(plan, site, &v) == std::vector<std::size_t>(8, tile));
        CHECK(runtime::tile_mappings_at_peak(plan, site, &whole) ==
              std::vector<std::size_t>(10, tile));
        CHECK(static_cast<std::int64_t>(10 * tile) <= peak[static_cast<std::size_t>(site)]);
    }
    CHECK(runtime::reserved_bytes_at_peak(plan, &v) == static_cast<std::int64_t>(8 * tile));
}

TEST_CASE("a rank reserves the einsum kernel's kept copies with its tiles") {
    // The plan of the first test case, its join given made-up scratch: a permuted copy of 8 MiB
    // (a host tile, kept from the join on), or 8 MiB of lanes panels (memory of their own).
    const Program prog = matmul(2048, 1024);
    ia::Plan plan = ia::compile_initial(prog, 2);
    ia::annotate_costs(plan);
    ia::IaNodeId join = plan.size();
    for (ia::IaNodeId i = 0; i < plan.size(); ++i)
        if (plan.node(i).op == ia::IaOp::LocalJoin) join = i;
    REQUIRE(join < plan.size());
    const std::int64_t bytes = 1024 * 1024 * 8;
    const std::size_t tile = host_mappings::length_for(static_cast<std::size_t>(bytes));
    ia::PlanScratch copy(plan.size()), panels(plan.size());
    copy[join] = ia::NodeScratch{DType::F64, {{bytes, 0, 0, 0}, 0}};
    panels[join] = ia::NodeScratch{DType::F64, {{0, 0, 0, bytes}, 0}};
    for (int site = 0; site < 2; ++site) {
        // At the join, the busiest step: its 10 tiles and the copy.
        CHECK(runtime::tile_mappings_at_peak(plan, site, nullptr, &copy) ==
              std::vector<std::size_t>(11, tile));
        CHECK(static_cast<std::int64_t>(11 * tile) <=
              ia::peak_per_site(plan, {}, {}, &copy)[static_cast<std::size_t>(site)]);
        // Panels are not tiles: the tiles alone, within the peak less the panels.
        const auto lengths = runtime::tile_mappings_at_peak(plan, site, nullptr, &panels);
        CHECK(lengths == std::vector<std::size_t>(10, tile));
        CHECK(static_cast<std::int64_t>(10 * tile) <=
              ia::peak_per_site(plan, {}, {}, &panels)[static_cast<std::size_t>(site)] - bytes);
    }
    CHECK(runtime::reserved_bytes_at_peak(plan, nullptr, &copy) ==
          static_cast<std::int64_t>(11 * tile));
}
