// The 2-D join strategies of issue 3 on a matrix multiply at S = 2, 3, 4: the `grid` (SUMMA)
// strategy's plan exists, is valid, and its exact cost equals a count made key by key with
// Placement functions and, from a 2-D block layout, SUMMA's closed form.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "ia/grid_move.hpp"
#include "ia/placement.hpp"
#include "ia/plan.hpp"
#include "ia/plan_validator.hpp"
#include "optimizer/search.hpp"
#include "plan_fixtures.hpp"
#include "program_fixtures.hpp"
#include "tra/program_builder.hpp"

using namespace tra;
using namespace tra::ia;
using namespace tra::optimizer;
using kernels::KernelCall;

namespace {

using tra::testing::at;
using tra::testing::generated;
using tra::testing::named;

// C = A B with A an I x K and B a K x J grid of 2x2 f64 tiles (program_fixtures.hpp).
Program matmul(std::int64_t I, std::int64_t K, std::int64_t J) {
    return tra::testing::tiled_matmul(I, K, J);
}

using tra::testing::kTile;
constexpr double kTileElements = 4;

SearchOptions fixed_inputs(const Program& p, const Placement& a, const Placement& b) {
    SearchOptions o;
    o.top_k = 1000;
    o.input_placements[*p.find("A")] = a;
    o.input_placements[*p.find("B")] = b;
    return o;
}

// Tile copies received when `node`'s tuples move from `from` to `to`: for every key, the
// sites of `to` that `from` does not already use.
std::int64_t copies_received(const Program& p, const std::string& node, const Placement& from,
                             const Placement& to, int S) {
    std::int64_t n = 0;
    for (const Key& k : p.node(*p.find(node)).keys) {
        const auto had = from.sites(k, S);
        for (Site s : to.sites(k, S))
            if (std::find(had.begin(), had.end(), s) == had.end()) ++n;
    }
    return n;
}

using R = Placement::Replicate;

}  // namespace

TEST_CASE("grid shape: all sites, as square as an exact factorization allows", "[grid]") {
    auto shape = [](int s) {
        GridShape g = grid_shape(s);
        return std::to_string(g.rows) + "x" + std::to_string(g.cols);
    };
    CHECK(shape(1) == "1x1");
    CHECK(shape(2) == "1x2");
    CHECK(shape(3) == "1x3");
    CHECK(shape(4) == "2x2");
    CHECK(shape(6) == "2x3");
    CHECK(shape(10) == "2x5");
    CHECK(shape(16) == "4x4");
    CHECK(grid_copies(Placement::grid(0, 1, 2, 3, R::AlongRow)) == 3);
    CHECK(grid_copies(Placement::grid(0, 1, 2, 3, R::AlongColumn)) == 2);
    CHECK(grid_copies(Placement::grid(0, 1, 2, 3)) == 1);
}

TEST_CASE("grid join: SUMMA plan costed against key-by-key counts", "[grid]") {
    Program p = matmul(3, 4, 5);  // |A| = 12 < |B| = 20 tuples: A takes the longer axis
    const Placement p0 = Placement::part({0});
    for (int S : {2, 3, 4}) {
        INFO("S = " << S);
        auto plans = search_plans(p, S, fixed_inputs(p, p0, p0));
        const RankedPlan* g = named(plans, "AB=grid,C=local");
        REQUIRE(g);
        CHECK_NOTHROW(validate(g->plan));
        GridShape shape = grid_shape(S);
        const Placement at = Placement::grid(0, 1, shape.rows, shape.cols, R::AlongRow);
        const Placement bt = Placement::grid(0, 1, shape.rows, shape.cols, R::AlongColumn);
        std::set<std::string> seen;
        for (const IaNode& n : g->plan.nodes()) {
            seen.insert(op_name(n.op) + " " + n.placement.str());
            if (n.op == IaOp::LocalJoin)
                CHECK(n.placement == Placement::grid(0, 2, shape.rows, shape.cols));
        }
        CHECK(seen.count("grid " + at.str()));
        CHECK(seen.count("grid " + bt.str()));
        const std::int64_t copies =
            copies_received(p, "A", p0, at, S) + copies_received(p, "B", p0, bt, S);
        CHECK(g->totals.payload_bytes == copies * kTile);
        // Paper model: f per copy delivered, no credit for copies in place.
        CHECK(g->totals.paper_floats ==
              Approx((12.0 * shape.cols + 20.0 * shape.rows) * kTileElements));
    }
}

TEST_CASE("grid join: from a 2-D block layout it moves SUMMA's volume", "[grid]") {
    // machine-and-peers.md: 2-D SUMMA on pr x pc receives, per rank, (pc-1)/pc * m k / pr +
    // (pr-1)/pr * k n / pc words. 4x4 tiles of 2x2 on every side: m = k = n = 8 elements.
    Program p = matmul(4, 4, 4);
    for (int S : {2, 3, 4}) {
        INFO("S = " << S);
        GridShape g = grid_shape(S);
        const Placement blocks = Placement::grid(0, 1, g.rows, g.cols);
        auto plans = search_plans(p, S, fixed_inputs(p, blocks, blocks));
        const RankedPlan* plan = named(plans, "AB=grid,C=local");
        REQUIRE(plan);
        // In tiles: every A tile gains pc-1 copies, every B tile pr-1 (16 tiles each).
        CHECK(plan->totals.payload_bytes == ((g.cols - 1) * 16 + (g.rows - 1) * 16) * kTile);
        if (S == 4) {
            const double m = 8, k = 8, n = 8, pr = 2, pc = 2;
            const double per_rank = (pc - 1) / pc * m * k / pr + (pr - 1) / pr * k * n / pc;
            CHECK(plan->totals.payload_bytes == static_cast<std::int64_t>(per_rank * 4 * 8));
        }
    }
}

TEST_CASE("matmul at S = 2, 3, 4 lists the distinct join strategies", "[grid]") {
    Program p = matmul(3, 4, 5);
    for (int S : {2, 3, 4}) {
        INFO("S = " << S);
        SearchOptions o;
        o.top_k = 1000;
        auto plans = search_plans(p, S, o);
        std::set<std::string> joins;
        for (const auto& r : plans) joins.insert(r.name.substr(0, r.name.find(',')));
        for (const char* s : {"AB=bcast-left", "AB=bcast-right", "AB=cmm", "AB=grid"})
            CHECK(joins.count(s));
    }
}
