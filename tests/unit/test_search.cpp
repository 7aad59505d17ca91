// Strategies and whole-plan search: the matmul join + aggregate at S = 2, 3, 4 -- each strategy's
// plan costed against counts made directly with Placement functions, the paper's predicted
// winners on common-K and two-large shapes, the search's optimum against an independent
// exhaustive enumeration, pinning and its errors, determinism, the greedy fallback, and where
// inputs may start.
#include <catch2/catch.hpp>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "ia/grid_move.hpp"
#include "ia/placement.hpp"
#include "ia/plan.hpp"
#include "ia/plan_costs.hpp"
#include "ia/plan_validator.hpp"
#include "ia/replicated_join.hpp"
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

// Tuples of `node` whose home differs between two Part placements, counted key by key.
std::int64_t moved(const Program& p, const std::string& node, const Placement& from,
                   const Placement& to, int S) {
    std::int64_t n = 0;
    for (const Key& k : p.node(*p.find(node)).keys)
        if (from.home(k, S) != to.home(k, S)) ++n;
    return n;
}

std::vector<std::string> names(const std::vector<RankedPlan>& plans) {
    std::vector<std::string> out;
    for (const auto& r : plans) out.push_back(r.name);
    return out;
}

SearchOptions fixed_inputs(const Program& p, const Placement& a, const Placement& b) {
    SearchOptions o;
    o.top_k = 100;
    o.input_placements[*p.find("A")] = a;
    o.input_placements[*p.find("B")] = b;
    return o;
}

}  // namespace

TEST_CASE("search: matmul strategies costed against direct counts", "[search]") {
    Program p = matmul(3, 4, 5);  // |A| = 12, |B| = 20, |AB| = 60 tuples
    const Placement p0 = Placement::part({0}), p1 = Placement::part({1});
    const Placement p02 = Placement::part({0, 2});
    for (int S : {2, 3, 4}) {
        INFO("S = " << S);
        auto plans = search_plans(p, S, fixed_inputs(p, p0, p0));
        // A Part[i], B Part[k]: bcast-left joins on B's k -> AB Part[k], then a shuffle;
        // bcast-right keeps A's i -> AB Part[i], so the aggregate needs no shuffle (R2-4).
        const RankedPlan* bl = named(plans, "AB=bcast-left,C=shuffle");
        const RankedPlan* br = named(plans, "AB=bcast-right,C=local");
        const RankedPlan* cm = named(plans, "AB=cmm,C=shuffle");
        REQUIRE(bl);
        REQUIRE(br);
        REQUIRE(cm);
        for (const auto& n : names(plans))  // local join: A Part[i], B Part[k] never meet
            CHECK(n.rfind("AB=local", 0) != 0);
        std::int64_t ab_shuffle = moved(p, "AB", p1, p02, S);
        CHECK(bl->totals.payload_bytes == (12 * (S - 1) + ab_shuffle) * kTile);
        CHECK(br->totals.payload_bytes == 20 * (S - 1) * kTile);
        // cmm: A to Part[k]; B is already Part[k], so it is not shuffled.
        CHECK(cm->totals.payload_bytes == (moved(p, "A", p0, p1, S) + ab_shuffle) * kTile);
        CHECK(cm->totals.paper_floats == Approx((12.0 + 60.0) * 4));
        CHECK(bl->totals.paper_floats == Approx(12.0 * 4 * S + 60.0 * 4));
        CHECK(br->totals.paper_floats == Approx(20.0 * 4 * S));
        int shuffles = 0;
        for (const IaNode& n : cm->plan.nodes()) shuffles += n.op == IaOp::Shuffle;
        CHECK(shuffles == 2);
        for (const auto& r : plans) CHECK_NOTHROW(validate(r.plan));
    }
}

TEST_CASE("search: the local join strategy appears when inputs are co-located", "[search]") {
    Program p = matmul(2, 3, 2);
    auto plans = search_plans(p, 3, fixed_inputs(p, Placement::part({1}), Placement::part({0})));
    REQUIRE(named(plans, "AB=local,C=shuffle"));
    CHECK(named(plans, "AB=local,C=shuffle")->totals.payload_bytes ==
          moved(p, "AB", Placement::part({1}), Placement::part({0, 2}), 3) * kTile);
    CHECK_FALSE(named(plans, "AB=cmm,C=shuffle"));  // nothing to shuffle: that is `local`
}

TEST_CASE("search: the paper's predicted winners", "[search]") {
    // Common large K (paper Table 4: CMM cheapest). Tile counts I = J = 2, K = 16: any bcast
    // moves one whole 32-tuple input to S-1 sites; co-partitioning on k moves only the 64
    // partial products, (S-1)/S of them. Without pre-aggregation the margin needs S >= 3.
    Program common_k = matmul(2, 16, 2);
    for (int S : {3, 4}) {
        auto plans = search_plans(common_k, S);
        REQUIRE_FALSE(plans.empty());
        INFO(plans[0].name);
        bool co_partitioned =
            plans[0].name.rfind("AB=cmm", 0) == 0 || plans[0].name.rfind("AB=local", 0) == 0;
        CHECK(co_partitioned);
        for (const auto& r : plans)
            if (r.name.find("bcast") != std::string::npos)
                CHECK(r.totals.payload_bytes > plans[0].totals.payload_bytes);
    }
    // Two large outer dims (paper: broadcast wins), with A the smaller side (4x2 vs 2x8
    // tiles): broadcasting A, B starting on Part[j], leaves AB on Part[j] -> local aggregate.
    Program two_large = matmul(4, 2, 8);
    for (int S : {2, 3, 4}) {
        auto plans = search_plans(two_large, S);
        REQUIRE_FALSE(plans.empty());
        CHECK(plans[0].name == "AB=bcast-left,C=local");
        CHECK(plans[0].totals.payload_bytes == 8 * (S - 1) * kTile);
    }
}

namespace {

// An independent exhaustive enumeration for the matmul program: every start of A and B, every
// way to move each join side (none, bcast, shuffle on its join key, grid: SUMMA's layout on the
// grid the `grid` strategy uses, a fixed choice rather than a search dimension; or rmm: both
// sides replicated to (i, k, j) and shuffled on Part[0, 2]) and the
// aggregate input (none, shuffle on by or on one of its positions, preagg likewise), built node
// by node; invalid plans are skipped by the validator.
// SUMMA's operand layouts on the `grid` strategy's grid: A replicated along rows, B along
// columns, the smaller input taking the longer axis (join_grid.hpp).
Placement grid_target(const Program& p, int S, bool left) {
    GridShape g = grid_shape(S);
    if (p.node(*p.find("A")).tuples() > p.node(*p.find("B")).tuples()) std::swap(g.rows, g.cols);
    return left ? Placement::grid(0, 1, g.rows, g.cols, Placement::Replicate::AlongRow)
                : Placement::grid(0, 1, g.rows, g.cols, Placement::Replicate::AlongColumn);
}

std::int64_t brute_force_min(const Program& p, int S) {
    std::int64_t best = std::numeric_limits<std::int64_t>::max();
    NodeId a = *p.find("A"), b = *p.find("B"), ab = *p.find("AB"), c = *p.find("C");
    // Where an input may start: Part on either position, and the unreplicated process grid
    // when neither position has as many keys as there are sites.
    auto starts = [&](NodeId input) {
        std::vector<Placement> out = {Placement::part({0}), Placement::part({1})};
        const auto& f = p.node(input).frontier;
        const GridShape g = grid_shape(S);
        if (f[0] < S && f[1] < S && g.rows > 1)
            out.push_back(Placement::grid(0, 1, g.rows, g.cols));
        return out;
    };
    for (const Placement& da : starts(a))
        for (const Placement& db : starts(b))
            for (int ma = 0; ma < 5; ++ma)  // 4: rmm, both sides replicated
                for (int mb = 0; mb < (ma == 4 ? 1 : 4); ++mb)
                    for (int mc = 0; mc < 7; ++mc) {
                        Plan plan(p, S);
                        auto add = [&](IaOp op, NodeId origin, std::vector<IaNodeId> in,
                                       KeyPositions dims, std::optional<Operator> logical,
                                       std::optional<Replication> replicate = std::nullopt) {
                            IaNode n;
                            n.op = op;
                            n.origin = origin;
                            n.inputs = std::move(in);
                            n.shuffle_dims = std::move(dims);
                            n.logical = std::move(logical);
                            if (replicate) {
                                n.replicated = replicate_relation(p.node(origin), *replicate);
                                n.map_arity = static_cast<int>(replicate->arity());
                            }
                            n.id = plan.size();
                            if (op == IaOp::Grid) n.placement = grid_target(p, S, origin == a);
                            n.placement = infer_output_placement(plan, n).placement.value_or(
                                Placement::unknown());
                            return plan.add(std::move(n));
                        };
                        IaNode ia_a, ia_b;
                        ia_a.op = ia_b.op = IaOp::Input;
                        ia_a.origin = a;
                        ia_b.origin = b;
                        ia_a.logical = p.node(a).op;
                        ia_b.logical = p.node(b).op;
                        ia_a.placement = da;
                        ia_b.placement = db;
                        IaNodeId x = plan.add(ia_a), y = plan.add(ia_b);
                        auto move = [&](IaNodeId in, NodeId origin, int how, std::size_t key) {
                            if (how == 1) return add(IaOp::Bcast, origin, {in}, {}, {});
                            if (how == 2) return add(IaOp::Shuffle, origin, {in}, {key}, {});
                            if (how == 3) return add(IaOp::Grid, origin, {in}, {}, {});
                            return in;
                        };
                        const auto& op = std::get<JoinOp>(p.node(ab).op);
                        IaNodeId j;
                        if (ma == 4) {
                            // A(i,k) -> (i,k,0:J), B(k,j) -> (0:I,k,j), both to Part[i, j].
                            x = add(IaOp::Map, a, {x}, {}, {},
                                    rmm_left_replication(op, p.node(a), p.node(b)));
                            y = add(IaOp::Map, b, {y}, {}, {},
                                    rmm_right_replication(op, p.node(a), p.node(b)));
                            x = add(IaOp::Shuffle, a, {x}, {0, 2}, {});
                            y = add(IaOp::Shuffle, b, {y}, {0, 2}, {});
                            j = add(IaOp::LocalJoin, ab, {x, y}, {}, rmm_local_join(op, 3));
                        } else {
                            x = move(x, a, ma, 1);
                            y = move(y, b, mb, 0);
                            j = add(IaOp::LocalJoin, ab, {x, y}, {}, p.node(ab).op);
                        }
                        // C: none, shuffle on (i, j), on i, on j; preagg, its partials
                        // shuffled on (i, j), on i, on j (C's key positions).
                        const std::vector<KeyPositions> on = {{0, 2}, {0}, {2}, {0, 1}, {0}, {1}};
                        if (mc >= 4) j = add(IaOp::PartialAggregate, c, {j}, {}, p.node(c).op);
                        if (mc >= 1) j = add(IaOp::Shuffle, mc >= 4 ? c : ab, {j}, on[mc - 1], {});
                        IaNodeId r = add(IaOp::LocalAggregate, c, {j}, {}, p.node(c).op);
                        plan.set_result(c, r);
                        try {
                            validate(plan);
                        } catch (const Error&) {
                            continue;
                        }
                        best = std::min(best, annotate_costs(plan).payload_bytes);
                    }
    return best;
}

}  // namespace

TEST_CASE("search: the best plan is the exhaustive optimum", "[search]") {
    for (auto [I, K, J] : {std::tuple{2, 3, 2}, std::tuple{3, 1, 4}, std::tuple{1, 5, 2}}) {
        Program p = matmul(I, K, J);
        for (int S : {2, 3, 4}) {
            INFO("I K J S = " << I << " " << K << " " << J << " " << S);
            auto plans = search_plans(p, S);
            REQUIRE_FALSE(plans.empty());
            INFO(plans[0].name);
            CHECK(plans[0].totals.payload_bytes == brute_force_min(p, S));
        }
    }
}

TEST_CASE("search: pins restrict, bad pins name what applies", "[search]") {
    Program p = matmul(3, 4, 5);
    SearchOptions o;
    o.top_k = 100;
    o.pins["AB"] = "cmm";
    auto plans = search_plans(p, 3, o);
    REQUIRE_FALSE(plans.empty());
    for (const auto& r : plans) CHECK(r.name.rfind("AB=cmm,", 0) == 0);
    o.pins["C"] = "local";  // cmm leaves AB on Part[k]: the aggregate must shuffle
    CHECK_THROWS_WITH(
        search_plans(p, 3, o),
        Catch::Contains("strategies that apply: preagg, preagg-grid, preagg[0], preagg[2], "
                        "shuffle, shuffle[0], shuffle[2]"));
    o.pins["AB"] = "bcast-right";  // A starting on Part[i] keeps AB on Part[i]
    plans = search_plans(p, 3, o);
    CHECK(names(plans) == std::vector<std::string>{"AB=bcast-right,C=local"});

    SearchOptions bad;
    bad.pins["Z"] = "cmm";
    CHECK_THROWS_WITH(search_plans(p, 3, bad), Catch::Contains("'Z'"));
    bad.pins = {{"A", "cmm"}};
    CHECK_THROWS_WITH(search_plans(p, 3, bad), Catch::Contains("not a needed join or aggregate"));
    bad.pins = {{"AB", "preagg"}};
    CHECK_THROWS_WITH(search_plans(p, 3, bad),
                      Catch::Contains("bcast-left, bcast-right, cmm, local"));
    bad = fixed_inputs(p, Placement::part({0}), Placement::part({0}));
    bad.pins = {{"AB", "local"}};
    CHECK_THROWS_WITH(search_plans(p, 3, bad),
                      Catch::Contains("AB") && Catch::Contains("bcast-left, bcast-right, cmm"));
    try {
        search_plans(p, 3, bad);
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::BadInput);
    }
}

TEST_CASE("search: deterministic order by payload, paper floats, name", "[search]") {
    Program p = matmul(3, 4, 5);
    for (int S : {2, 3, 4}) {
        auto one = search_plans(p, S), two = search_plans(p, S);
        CHECK(names(one) == names(two));
        for (std::size_t i = 1; i < one.size(); ++i) {
            const auto &a = one[i - 1].totals, &b = one[i].totals;
            bool ordered = std::tie(a.payload_bytes, a.paper_floats, one[i - 1].name) <
                           std::tie(b.payload_bytes, b.paper_floats, one[i].name);
            CHECK(ordered);
        }
        SearchOptions top2;
        top2.top_k = 2;
        auto all = names(one);
        REQUIRE(all.size() >= 2);
        CHECK(names(search_plans(p, S, top2)) ==
              std::vector<std::string>(all.begin(), all.begin() + 2));
    }
}

TEST_CASE("search: over the cap the search is a beam search", "[search]") {
    Program p = matmul(3, 4, 5);
    SearchOptions o;
    o.max_combinations = 1;
    o.beam_width = 1;
    o.beam_extensions = 0;  // the width is beam_width
    auto plans = search_plans(p, 3, o);
    REQUIRE(plans.size() == 1);
    CHECK_NOTHROW(validate(plans[0].plan));
    // A beam of one is greedy: inputs tie at cost 0 and keep Part[0]; at the join cmm (8 of A's
    // 12 tuples move at S = 3) beats bcast-left (24 copies) and bcast-right (40), and C must
    // then move partial products: preagg (30 partials; to Part homes or, as here, to the grid
    // homes of preagg-grid) beats shuffle (40 of AB's 60 tuples), shuffle[0] (40) and
    // shuffle[2] (39). 38 tiles in all -- myopic: the exhaustive optimum starts B on Part[j] and
    // broadcasts A (24 copies), leaving C local.
    CHECK(plans[0].name.rfind("AB=cmm,C=preagg", 0) == 0);
    CHECK(plans[0].totals.payload_bytes == 38 * kTile);
    // A wider beam keeps the partial plans that pay off later and finds that optimum. A beam of
    // 8 does because it keeps one partial plan per frontier (optimizer/beam_frontier.hpp): the
    // 8 cheapest partial plans alone include several alike for every later node (it found 30
    // tiles so, where the optimum is 24).
    o.beam_width = 8;
    CHECK(search_plans(p, 3, o)[0].totals.payload_bytes == 24 * kTile);
    o.beam_width = 32;
    CHECK(search_plans(p, 3, o)[0].totals.payload_bytes == 24 * kTile);
    CHECK(search_plans(p, 3)[0].totals.payload_bytes == 24 * kTile);
    // A program this short affords a wider beam than its least width: widened, a beam of one
    // finds the optimum too; capped at one, it is greedy again.
    o.beam_width = 1;
    o.beam_extensions = 16384;
    CHECK(search_plans(p, 3, o)[0].totals.payload_bytes == 24 * kTile);
    o.max_beam_width = 1;
    CHECK(search_plans(p, 3, o)[0].totals.payload_bytes == 38 * kTile);
}

TEST_CASE("search: inputs start on the process grid only where Part leaves sites idle",
          "[search]") {
    Program p = matmul(3, 1, 4);  // A: 3 x 1 tiles, B: 1 x 4
    const NodeId a = *p.find("A"), b = *p.find("B");
    // At 4 sites A's positions have 3 and 1 keys: Part[d] leaves sites idle.
    CHECK(candidate_input_placements(p, a, 4) ==
          std::vector<Placement>{Placement::part({0}), Placement::part({1}),
                                 Placement::grid(0, 1, 2, 2)});
    // B's position 1 has 4 keys, one per site: Part[1] already spreads it.
    CHECK(candidate_input_placements(p, b, 4) ==
          std::vector<Placement>{Placement::part({0}), Placement::part({1})});
    // A prime site count has a 1 x S grid, no better than Part.
    CHECK(candidate_input_placements(p, a, 5).size() == 2);
    // The 32 x 32 tile matmul at 1024 sites (docs/cost-model.md, "Grid plans at many sites") in
    // small: 4 x 4 tiles at 16 sites. From the grid every site sends its one tile to its grid
    // row or column; from Part the 4 sites holding a row (or column) send all of it, so the grid
    // plan moves fewer bytes and holds less at its peak.
    Program q = matmul(4, 4, 4);
    auto grid_plan = [&](const Placement& start_a, const Placement& start_b) {
        SearchOptions o = fixed_inputs(q, start_a, start_b);
        o.pins = {{"AB", "grid"}, {"C", "local"}};
        auto plans = search_plans(q, 16, o);
        REQUIRE(plans.size() == 1);
        return plans[0].totals;
    };
    const Placement cell = Placement::grid(0, 1, 4, 4);
    const PlanTotals from_grid = grid_plan(cell, cell);
    for (std::size_t da : {0, 1})
        for (std::size_t db : {0, 1}) {
            const PlanTotals from_part = grid_plan(Placement::part({da}), Placement::part({db}));
            CHECK(from_grid.payload_bytes < from_part.payload_bytes);
            CHECK(from_grid.peak_bytes < from_part.peak_bytes);
        }
}
