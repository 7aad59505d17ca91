// ia::estimated_seconds: per operator, the busiest site's flops and received bytes, so a plan
// that moves nothing because one site computes everything (a replicated join with one output
// tile) is seen to be slower than a balanced pre-aggregation that moves a little. Hand-computed.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ia/time_estimate.hpp"
#include "optimizer/search.hpp"
#include "program_fixtures.hpp"
#include "tra/program_builder.hpp"

using namespace tra;
using kernels::KernelCall;
using optimizer::RankedPlan;
using tra::testing::at;
using tra::testing::generated;

namespace {

// C = A B, A one row of 4 tiles and B one column of 4 tiles (2x2 f64 tiles: 32 bytes, 16 flops
// per tile product): one output tile.
Program common_k() {
    ProgramBuilder b("k", DType::F64);
    b.add_input("A", Shape{2, 8}, Shape{2, 2}, DType::F64, generated(), at("A"));
    b.add_input("B", Shape{8, 2}, Shape{2, 2}, DType::F64, generated(), at("B"));
    b.add_join("AB", "A", "B", {1}, {0}, KernelCall("matmul"), at("AB"));
    b.add_aggregate("C", "AB", {0, 2}, KernelCall("add"), at("C"));
    b.add_output("C", "out.h5", "/C", at("out"));
    return b.finish();
}

// The plan with these pins, A and B partitioned on k (tiles k = 0, 2 on site 0; 1, 3 on 1).
RankedPlan pinned(const Program& p, const std::string& join, const std::string& aggregate) {
    optimizer::SearchOptions o;
    o.pins = {{"AB", join}, {"C", aggregate}};
    o.input_placements[*p.find("A")] = ia::Placement::part({1});
    o.input_placements[*p.find("B")] = ia::Placement::part({0});
    auto plans = optimizer::search_plans(p, 2, o);
    REQUIRE(plans.size() == 1);
    return plans.front();
}

constexpr double kInstant = 1e30;  // a rate that makes its term vanish

}  // namespace

TEST_CASE("estimated seconds: the busiest site's flops per operator", "[time]") {
    const Program p = common_k();
    const ia::MachineRates flops_only{1, kInstant};
    // Pre-aggregation: each site multiplies its own two k tiles (2 x 16 flops).
    const RankedPlan preagg = pinned(p, "local", "preagg");
    CHECK(preagg.totals.flops == 64);
    CHECK(ia::estimated_seconds(preagg.plan, flops_only) == Approx(32));
    // Replicated join: the same total flops, all of them on the site of the one output tile.
    const RankedPlan rmm = pinned(p, "rmm", "local");
    CHECK(rmm.totals.flops == 64);
    CHECK(ia::estimated_seconds(rmm.plan, flops_only) == Approx(64));
}

TEST_CASE("estimated seconds: the busiest site's received bytes per operator", "[time]") {
    const Program p = common_k();
    const ia::MachineRates bytes_only{kInstant, 1};
    // Site 1's partial goes to the home of (0, 0), site 0: 32 tile bytes + 2 key positions * 8
    // + one count 8.
    const RankedPlan preagg = pinned(p, "local", "preagg");
    CHECK(preagg.totals.payload_bytes == 32);
    CHECK(ia::estimated_seconds(preagg.plan, bytes_only) == Approx(56));
    // Replicated join: A* and B* each send their two site-1 tiles to site 0: per shuffle
    // 2 * 32 + 2 keys * 3 positions * 8 + one count 8 = 120.
    const RankedPlan rmm = pinned(p, "rmm", "local");
    CHECK(ia::estimated_seconds(rmm.plan, bytes_only) == Approx(240));
}

TEST_CASE("estimated seconds: both terms add, and an idle site costs time", "[time]") {
    const Program p = common_k();
    const ia::MachineRates rates{16, 8};  // one tile product per second, 8 bytes per second
    CHECK(ia::estimated_seconds(pinned(p, "local", "preagg").plan, rates) == Approx(2 + 7));
    CHECK(ia::estimated_seconds(pinned(p, "rmm", "local").plan, rates) == Approx(4 + 30));
}

TEST_CASE("estimated seconds: the memory pass of a join and sum that are not fused", "[time]") {
    const Program p = common_k();
    const ia::MachineRates memory_only{kInstant, kInstant, 1};
    // Join, shuffle, sum: each site writes its two products (64 bytes); the sum on site 0, the
    // home of (0, 0), reads all four (128) and writes one tile (32).
    CHECK(ia::estimated_seconds(pinned(p, "local", "shuffle").plan, memory_only) ==
          Approx(64 + 160));
    // Pre-aggregation: the join adds its products into one accumulator per site (fused: no
    // pass); the combining sum on site 0 reads the two partials (64) and writes one tile (32).
    CHECK(ia::estimated_seconds(pinned(p, "local", "preagg").plan, memory_only) == Approx(96));
}
