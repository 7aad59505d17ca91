// The one planning entry (optimizer/planner.hpp): ranking under each cost model, the memory
// filter, pins, input placements and the choice by rank. Expected orders are derived here from
// each plan's own totals and seconds, never from the planner's ranking.
#include <algorithm>
#include <catch2/catch.hpp>
#include <tuple>

#include "core/error.hpp"
#include "ia/peak_memory.hpp"
#include "ia/time_estimate.hpp"
#include "ia/verification_plan.hpp"
#include "optimizer/planner.hpp"
#include "program_fixtures.hpp"

using namespace tra;
using tra::optimizer::CostModel;
using tra::optimizer::PlanRequest;
using tra::optimizer::RankedPlans;

namespace {

PlanRequest request_for(int sites, CostModel cost = CostModel::Exact) {
    PlanRequest r;
    r.sites = sites;
    r.cost = cost;
    return r;
}

}  // namespace

TEST_CASE("planner: exact order is payload, then paper floats, then name", "[planner]") {
    const RankedPlans r = optimizer::rank_plans(testing::tiled_matmul(4, 4, 4), request_for(4));
    REQUIRE(r.plans.size() > 3);
    REQUIRE(r.seconds.size() == r.plans.size());
    CHECK(r.sites == 4);
    for (std::size_t i = 1; i < r.plans.size(); ++i) {
        const auto& a = r.plans[i - 1];
        const auto& b = r.plans[i];
        CHECK(std::tie(a.totals.payload_bytes, a.totals.paper_floats, a.name) <
              std::tie(b.totals.payload_bytes, b.totals.paper_floats, b.name));
    }
}

TEST_CASE("planner: paper and time models rank by their own measure first", "[planner]") {
    const Program p = testing::tiled_matmul(4, 2, 4);
    const RankedPlans paper = optimizer::rank_plans(p, request_for(3, CostModel::Paper));
    for (std::size_t i = 1; i < paper.plans.size(); ++i)
        CHECK(paper.plans[i - 1].totals.paper_floats <= paper.plans[i].totals.paper_floats);
    const RankedPlans time = optimizer::rank_plans(p, request_for(3, CostModel::Time));
    for (std::size_t i = 0; i < time.plans.size(); ++i) {
        CHECK(time.seconds[i] == ia::estimated_seconds(time.plans[i].plan, ia::TimeModel{}));
        if (i) CHECK(time.seconds[i - 1] <= time.seconds[i]);
    }
    // Same candidates whatever the model.
    CHECK(paper.plans.size() == time.plans.size());
}

TEST_CASE("planner: the memory budget drops plans, cheapest first, and says what is needed",
          "[planner]") {
    const Program p = testing::tiled_matmul(4, 4, 4);
    const RankedPlans all = optimizer::rank_plans(p, request_for(4));
    std::int64_t lowest = all.plans.front().totals.peak_bytes, highest = lowest;
    for (const auto& plan : all.plans) {
        lowest = std::min(lowest, plan.totals.peak_bytes);
        highest = std::max(highest, plan.totals.peak_bytes);
    }
    REQUIRE(lowest < highest);

    PlanRequest budget = request_for(4);
    budget.memory_per_site = lowest;
    const RankedPlans kept = optimizer::rank_plans(p, budget);
    CHECK(kept.plans.size() + kept.dropped.size() == all.plans.size());
    CHECK_FALSE(kept.dropped.empty());
    for (const auto& plan : kept.plans) CHECK(plan.totals.peak_bytes <= lowest);
    for (const auto& d : kept.dropped) CHECK(d.peak_bytes > lowest);

    budget.memory_per_site = lowest - 1;
    CHECK_THROWS_AS(optimizer::rank_plans(p, budget), Error);
}

TEST_CASE("planner: with verify, the budget counts what --verify keeps", "[planner]") {
    const Program p = testing::tiled_matmul(4, 4, 4);
    PlanRequest verified = request_for(4);
    verified.verify = true;
    verified.memory_per_site = std::int64_t{1} << 40;  // every plan fits
    const RankedPlans all = optimizer::rank_plans(p, verified);
    REQUIRE(all.plans.size() > 1);
    // Each plan's peak is its verification peak: at least the plain one, and its own.
    const RankedPlans plain = optimizer::rank_plans(p, request_for(4));
    for (const auto& plan : all.plans) {
        const ia::VerificationPlan v = ia::plan_verification(plan.plan);
        const auto peaks = ia::peak_per_site(plan.plan, v.kept, v.scratch_per_site);
        CHECK(plan.totals.peak_bytes == *std::max_element(peaks.begin(), peaks.end()));
        for (const auto& q : plain.plans)
            if (q.name == plan.name) CHECK(q.totals.peak_bytes <= plan.totals.peak_bytes);
    }
    // A budget between a plan's plain and verified peaks keeps it without verify, drops it with.
    for (const auto& plan : all.plans)
        for (const auto& q : plain.plans)
            if (q.name == plan.name && q.totals.peak_bytes < plan.totals.peak_bytes) {
                PlanRequest budget = request_for(4);
                budget.memory_per_site = q.totals.peak_bytes;
                const auto kept = optimizer::rank_plans(p, budget);
                CHECK(std::any_of(kept.plans.begin(), kept.plans.end(),
                                  [&](const auto& k) { return k.name == plan.name; }));
                budget.verify = true;
                try {
                    const auto dropped = optimizer::rank_plans(p, budget);
                    CHECK(std::none_of(dropped.plans.begin(), dropped.plans.end(),
                                       [&](const auto& k) { return k.name == plan.name; }));
                } catch (const Error&) {
                    // No plan fits with verify: the plan was dropped with all others.
                }
                return;
            }
    FAIL("no plan whose verification adds to its peak");
}

TEST_CASE("planner: top cuts the list, choose_plan picks by rank", "[planner]") {
    PlanRequest r = request_for(2);
    r.top = 2;
    const RankedPlans ranked = optimizer::rank_plans(testing::tiled_matmul(2, 2, 2), r);
    REQUIRE(ranked.plans.size() == 2);
    CHECK(&optimizer::choose_plan(ranked, r) == &ranked.plans[0]);
    r.rank = 2;
    CHECK(&optimizer::choose_plan(ranked, r) == &ranked.plans[1]);
    r.rank = 3;
    CHECK_THROWS_AS(optimizer::choose_plan(ranked, r), Error);
    r.rank = 0;
    CHECK_THROWS_AS(optimizer::choose_plan(ranked, r), Error);
}

TEST_CASE("planner: pins and input placements restrict the search", "[planner]") {
    const Program p = testing::tiled_matmul(2, 2, 2);
    PlanRequest r = request_for(2);
    r.pins = {{"AB", "bcast-left"}};
    const RankedPlans pinned = optimizer::rank_plans(p, r);
    REQUIRE_FALSE(pinned.plans.empty());
    for (const auto& plan : pinned.plans) CHECK(plan.name.rfind("AB=bcast-left,", 0) == 0);

    PlanRequest placed = request_for(2);
    placed.input_placements = {{"A", ia::Placement::part({0})}, {"B", ia::Placement::part({0})}};
    const RankedPlans fixed = optimizer::rank_plans(p, placed);
    for (const auto& plan : fixed.plans)
        for (const auto& n : plan.plan.nodes())
            if (n.op == ia::IaOp::Input) CHECK(n.placement.str() == "Part[0]");

    PlanRequest unknown = request_for(2);
    unknown.input_placements = {{"AB", ia::Placement::part({0})}};
    CHECK_THROWS_AS(optimizer::rank_plans(p, unknown), Error);
    CHECK_THROWS_AS(optimizer::rank_plans(p, request_for(0)), Error);
}
