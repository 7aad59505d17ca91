// Pre-aggregation (R2-5), aggregate shuffles on a subset of the group keys, and shared enforcers:
// CMM's aggregate costed by hand at S = 2, 3, the reduce cost against a count made directly with
// Placement functions, the validator's rules for partials, the subset shuffle that makes a
// consumer join local, and one bcast node for two joins.
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "ia/partials.hpp"
#include "ia/placement.hpp"
#include "ia/plan.hpp"
#include "ia/plan_costs.hpp"
#include "ia/plan_validator.hpp"
#include "optimizer/emit.hpp"
#include "optimizer/search.hpp"
#include "optimizer/strategy.hpp"
#include "program_fixtures.hpp"
#include "temp_dir.hpp"
#include "tra/program_builder.hpp"
#include "workflow/plan_file.hpp"
#include "workflow/workflow_loader.hpp"

using namespace tra;
using namespace tra::ia;
using namespace tra::optimizer;
using kernels::KernelCall;

namespace {

using tra::testing::at;
using tra::testing::generated;

using tra::testing::kTile;  // 2x2 f64

// C = A B with A an I x K and B a K x J grid of 2x2 tiles; optionally D = C E with E J x L.
Program matmul(std::int64_t I, std::int64_t K, std::int64_t J, std::int64_t L = 0) {
    return tra::testing::tiled_matmul(I, K, J, L);
}

SearchOptions cmm_inputs(const Program& p) {
    SearchOptions o;
    o.top_k = 1000;
    o.input_placements[*p.find("A")] = Placement::part({1});  // A on k
    o.input_placements[*p.find("B")] = Placement::part({0});  // B on k: AB is a local join
    if (auto e = p.find("E")) o.input_placements[*e] = Placement::part({0});
    return o;
}

const RankedPlan& named(const std::vector<RankedPlan>& plans, const std::string& name) {
    for (const auto& r : plans)
        if (r.name == name) return r;
    FAIL("no plan named " << name);
    throw;
}

bool has(const std::vector<RankedPlan>& plans, const std::string& name) {
    for (const auto& r : plans)
        if (r.name == name) return true;
    return false;
}

std::vector<std::string> ops(const Plan& p) {
    std::vector<std::string> out;
    for (const IaNode& n : p.nodes()) out.push_back(op_name(n.op) + ":" + p.origin(n.id).name);
    return out;
}

// The reduce counted directly: for every AB tuple its site under `from`, grouped on (i, j);
// each group's distinct sites other than its home under `to` (on C's key) send one partial.
struct Direct {
    std::int64_t partials = 0, sent = 0;
    std::set<std::pair<Site, Site>> pairs;
};
Direct direct_reduce(const Program& p, const Placement& from, const Placement& to, int S) {
    std::map<Key, std::set<Site>> groups;
    for (const Key& k : p.node(*p.find("AB")).keys) groups[Key{k[0], k[2]}].insert(from.home(k, S));
    Direct d;
    for (const auto& [g, sites] : groups) {
        d.partials += static_cast<std::int64_t>(sites.size());
        for (Site s : sites)
            if (s != to.home(g, S)) {
                ++d.sent;
                d.pairs.emplace(s, to.home(g, S));
            }
    }
    return d;
}

}  // namespace

TEST_CASE("preagg: CMM's aggregate by hand at S = 2 and 3", "[preagg]") {
    // A 3x4, B 4x5 tiles: AB (i,k,j) has 60 tuples on Part[1] (site k mod S); C has 15 groups,
    // each with K = 4 >= S partial products on every site.
    Program p = matmul(3, 4, 5);
    for (int S : {2, 3}) {
        INFO("S = " << S);
        auto plans = search_plans(p, S, cmm_inputs(p));
        const RankedPlan& pre = named(plans, "AB=local,C=preagg");
        const RankedPlan& shuf = named(plans, "AB=local,C=shuffle");
        CHECK(ops(pre.plan) == std::vector<std::string>{"input:A", "input:B", "local_join:AB",
                                                        "partial_aggregate:C", "shuffle:C",
                                                        "local_aggregate:C"});
        CHECK(pre.plan.node(3).placement == Placement::unknown());
        CHECK(pre.plan.holds_partials(3));
        CHECK(pre.plan.holds_partials(4));
        CHECK_FALSE(pre.plan.holds_partials(5));
        CHECK(pre.plan.node(4).shuffle_dims == KeyPositions{0, 1});
        CHECK(pre.plan.node(5).placement == Placement::part({0, 1}));
        CHECK(*pre.plan.result(*p.find("C")) == 5);
        // Every group has a partial on all S sites; all but the home's travel.
        CHECK(pre.totals.payload_bytes == 15 * (S - 1) * kTile);
        // Shuffling AB itself: S = 2, half of the 4 k's per (i, j) differ in parity from
        // h(i, j) -> 30; S = 3, 5 groups have home 0 (2 of k = 0..3 move) and 10 another site
        // (3 move) -> 40.
        CHECK(shuf.totals.payload_bytes == (S == 2 ? 30 : 40) * kTile);
        if (S == 2) {
            // 15 partials x 2 key positions x 8 B, and both pairs (0,1), (1,0) carry some.
            CHECK(pre.totals.overhead_bytes == 15 * 16 + 2 * 8);
        }
        // Paper model: one count per partial (15 S partials of 4 floats); the paper's own
        // charge is the aggregated C, 15 x 4; shuffling AB is 60 x 4.
        CHECK(pre.totals.paper_floats == Approx(15.0 * S * 4));
        CHECK(pre.totals.paper_floats_aggregated == Approx(15.0 * 4));
        CHECK(shuf.totals.paper_floats == Approx(60.0 * 4));
        CHECK(shuf.totals.paper_floats_aggregated == Approx(60.0 * 4));
        // Until combined, each home holds all S partials of its groups.
        std::int64_t held = 0;
        for (auto b : pre.plan.node(4).cost.resident) held += b;
        CHECK(held == 15 * S * kTile);
        CHECK(plans[0].name == "AB=local,C=preagg");
        CHECK_NOTHROW(validate(pre.plan));
    }
}

TEST_CASE("preagg: the reduce cost equals a direct count with the Placement functions",
          "[preagg]") {
    for (auto [I, K, J] : {std::tuple{3, 4, 5}, std::tuple{2, 2, 3}, std::tuple{4, 7, 2}}) {
        Program p = matmul(I, K, J);
        for (int S = 1; S <= 5; ++S) {
            INFO("I K J S = " << I << " " << K << " " << J << " " << S);
            auto plans = search_plans(p, S, cmm_inputs(p));
            // preagg[p]: partials shuffled on C position 0 (i) or 1 (j).
            for (auto [name, to] : {std::pair{"AB=local,C=preagg", Placement::part({0, 1})},
                                    std::pair{"AB=local,C=preagg[0]", Placement::part({0})},
                                    std::pair{"AB=local,C=preagg[2]", Placement::part({1})}}) {
                INFO(name);
                Direct d = direct_reduce(p, Placement::part({1}), to, S);
                if (!has(plans, name)) {
                    // Not offered exactly when no group spans sites.
                    CHECK(d.partials == I * J);
                    continue;
                }
                const RankedPlan& r = named(plans, name);
                const Transfer& t = r.plan.node(4).cost.transfer;
                CHECK(t.payload_bytes == d.sent * kTile);
                CHECK(t.tuples_moved == d.sent);
                CHECK(t.pairs == static_cast<std::int64_t>(d.pairs.size()));
                CHECK(t.overhead_bytes == d.sent * 2 * 8 + t.pairs * 8);
                CHECK(r.plan.node(4).cost.paper_floats == Approx(4.0 * d.partials));
                CHECK(r.totals.payload_bytes == d.sent * kTile);  // the join is local
            }
        }
    }
}

TEST_CASE("preagg: exact_reduce on a hand-made set of partials", "[preagg]") {
    // Group (0) has partials on sites 0, 1, 2 and home 0; group (1) only on its home 1.
    SiteMap partials = {{Key{0}, {0, 1, 2}}, {Key{1}, {1}}};
    Transfer t = exact_reduce(partials, 1, 100, Placement::part({0}), 3);
    CHECK(t.payload_bytes == 200);
    CHECK(t.tuples_moved == 2);
    CHECK(t.pairs == 2);
    CHECK(t.overhead_bytes == 2 * 8 + 2 * 8);
    CHECK(t.received_payload == std::vector<std::int64_t>{200, 0, 0});
    CHECK(t.sent_payload == std::vector<std::int64_t>{0, 100, 100});
    CHECK(reduced_resident(partials, 100, Placement::part({0}), 3) ==
          std::vector<std::int64_t>{300, 100, 0});
    CHECK(partial_count(partials) == 4);
    CHECK(spans_sites(partials));
    CHECK_FALSE(spans_sites({{Key{0}, {2}}}));
    CHECK_THROWS(exact_reduce(partials, 1, 100, Placement::all(), 3));
    // The holders of partials: distinct sites of a group's tuples, ascending.
    SiteMap in = {{Key{0, 5}, {2}}, {Key{0, 6}, {0}}, {Key{0, 7}, {2}}, {Key{1, 5}, {1}}};
    CHECK(partial_holders(in, {0}) == SiteMap{{Key{0}, {0, 2}}, {Key{1}, {1}}});
}

TEST_CASE("preagg: groups_span_sites agrees with spans_sites of the partials", "[preagg]") {
    SiteMap in = {{Key{0, 5}, {2}}, {Key{0, 6}, {0}}, {Key{0, 7}, {2}}, {Key{1, 5}, {1}}};
    CHECK(groups_span_sites(in, {0}));           // group 0 on sites 0 and 2
    CHECK_FALSE(groups_span_sites(in, {0, 1}));  // every group is one tuple
    CHECK_FALSE(groups_span_sites({{Key{0, 1}, {1}}, {Key{0, 2}, {1}}}, {0}));
    CHECK(groups_span_sites({{Key{0, 1}, {0, 1}}}, {0}));  // one replicated tuple
    CHECK_FALSE(groups_span_sites({}, {0}));
    CHECK_THROWS(groups_span_sites(in, {2}));
    // Every placement of a 4x3 box on S = 1..4, grouped on each position and on both.
    KeySet keys;
    for (std::int64_t i = 0; i < 4; ++i)
        for (std::int64_t j = 0; j < 3; ++j) keys.insert(Key{i, j});
    for (int S = 1; S <= 4; ++S)
        for (const Placement& p : {Placement::part({0}), Placement::part({1}),
                                   Placement::part({1, 0}), Placement::all()}) {
            SiteMap where = holders(keys, p, S);
            for (const KeyPositions& by : {KeyPositions{0}, KeyPositions{1}, KeyPositions{0, 1}})
                CHECK(groups_span_sites(where, by) == spans_sites(partial_holders(where, by)));
        }
}

TEST_CASE("preagg: not offered when no group spans sites", "[preagg]") {
    // K = 1: every AB tuple of Part[1] is on site 0, so each group is whole there.
    Program p = matmul(2, 1, 3);
    auto plans = search_plans(p, 3, cmm_inputs(p));
    CHECK(has(plans, "AB=local,C=shuffle"));
    for (const auto& r : plans) CHECK(r.name.find("preagg") == std::string::npos);
}

TEST_CASE("preagg: the validator's rules for partials", "[preagg]") {
    Program p = matmul(2, 3, 2);
    const NodeId a = *p.find("A"), b = *p.find("B"), ab = *p.find("AB"), c = *p.find("C");
    // A Part[1], B Part[0] -> AB local on Part[1]; then `tail` builds the rest.
    auto build = [&](const Placement& ab_start, auto tail) {
        Plan plan(p, 2);
        IaNodeId x = emit_input(plan, a, Placement::part({1}));
        IaNodeId y = emit_input(plan, b, Placement::part({0}));
        IaNodeId j = *emit_node(plan, IaOp::LocalJoin, ab, {x, y}, "t", p.node(ab).op);
        if (ab_start.kind() == Placement::Kind::All) j = *emit_bcast(plan, j, "t");
        auto add = [&](IaOp op, NodeId origin, std::vector<IaNodeId> in, KeyPositions dims) {
            IaNode n;
            n.op = op;
            n.origin = origin;
            n.inputs = std::move(in);
            n.shuffle_dims = std::move(dims);
            if (!is_enforcer(op)) n.logical = p.node(origin).op;
            n.id = plan.size();
            n.placement = infer_output_placement(plan, n).placement.value_or(Placement::unknown());
            return plan.add(std::move(n));
        };
        tail(plan, j, add);
        return plan;
    };
    auto rejects = [&](const Plan& plan, const std::string& why) {
        CHECK_THROWS_WITH(validate(plan), Catch::Contains(why));
    };
    // The good chain.
    CHECK_NOTHROW(validate(build(Placement::part({1}), [&](Plan&, IaNodeId j, auto add) {
        IaNodeId pa = add(IaOp::PartialAggregate, c, {j}, {});
        add(IaOp::LocalAggregate, c, {add(IaOp::Shuffle, c, {pa}, {0, 1})}, {});
    })));
    // Over All every site would fold every tuple: S times the sum.
    rejects(build(Placement::all(),
                  [&](Plan&, IaNodeId j, auto add) { add(IaOp::PartialAggregate, c, {j}, {}); }),
            "needs each tuple on exactly one site");
    // Combining before the partials are together.
    rejects(build(Placement::part({1}),
                  [&](Plan&, IaNodeId j, auto add) {
                      add(IaOp::LocalAggregate, c, {add(IaOp::PartialAggregate, c, {j}, {})}, {});
                  }),
            "Unknown");
    // Partials are not the relation: no bcast, no join, no second shuffle.
    rejects(build(Placement::part({1}),
                  [&](Plan&, IaNodeId j, auto add) {
                      add(IaOp::Bcast, c, {add(IaOp::PartialAggregate, c, {j}, {})}, {});
                  }),
            "holds partial results");
    rejects(build(Placement::part({1}),
                  [&](Plan&, IaNodeId j, auto add) {
                      IaNodeId s =
                          add(IaOp::Shuffle, c, {add(IaOp::PartialAggregate, c, {j}, {})}, {0});
                      add(IaOp::Shuffle, c, {s}, {1});
                  }),
            "shuffle them once");
    // A local aggregate reading its own relation that is not partials.
    rejects(build(Placement::part({1}),
                  [&](Plan&, IaNodeId j, auto add) {
                      IaNodeId moved = add(IaOp::Shuffle, ab, {j}, {0, 2});
                      IaNodeId done = add(IaOp::LocalAggregate, c, {moved}, {});
                      add(IaOp::LocalAggregate, c, {done}, {});
                  }),
            "is neither");
}

TEST_CASE("aggregate shuffle on a subset of the group keys", "[preagg]") {
    // CE = C E joins on C's j: shuffling AB on j alone leaves C on Part[1] (its j), which meets
    // E on Part[0] (its j) with no further enforcer.
    Program p = matmul(3, 4, 5, 2);
    for (int S : {2, 3}) {
        INFO("S = " << S);
        auto plans = search_plans(p, S, cmm_inputs(p));
        const RankedPlan& sub = named(plans, "AB=local,C=shuffle[2],CE=local");
        CHECK(sub.plan.node(*sub.plan.result(*p.find("C"))).placement == Placement::part({1}));
        std::int64_t moved = 0;
        for (const Key& k : p.node(*p.find("AB")).keys)
            moved += Placement::part({1}).home(k, S) != Placement::part({2}).home(k, S);
        CHECK(sub.totals.payload_bytes == moved * kTile);
        CHECK(has(plans, "AB=local,C=shuffle[0],CE=bcast-left"));
        CHECK(has(plans, "AB=local,C=preagg[2],CE=local"));
        // The full shuffle leaves C on Part[0, 1]: CE is not local then.
        CHECK_FALSE(has(plans, "AB=local,C=shuffle,CE=local"));
        for (const auto& r : plans) CHECK_NOTHROW(validate(r.plan));
    }
    // Bounded: single positions, the full list and the grid; none when by has one position.
    AggregateOp agg = std::get<AggregateOp>(p.node(*p.find("C")).op);
    auto list = [](const std::vector<Strategy>& strategies) {
        std::vector<std::string> out;
        for (const auto& s : strategies) out.push_back(s.name);
        return out;
    };
    CHECK(list(strategies_for(agg)) ==
          std::vector<std::string>{"shuffle", "shuffle[0]", "shuffle[2]", "preagg", "preagg[0]",
                                   "preagg[2]", "preagg-grid", "local"});
    agg.by = {1};
    CHECK(list(strategies_for(agg)) == std::vector<std::string>{"shuffle", "preagg", "local"});
    // Pins name the subset variants.
    SearchOptions o = cmm_inputs(p);
    o.pins["C"] = "shuffle[2]";
    for (const auto& r : search_plans(p, 2, o))
        CHECK(r.name.find("C=shuffle[2]") != std::string::npos);
}

TEST_CASE("shared enforcers: one bcast of W for two joins, charged once", "[preagg]") {
    ProgramBuilder b("two", DType::F64);
    b.add_input("W", Shape{4, 4}, Shape{2, 2}, DType::F64, generated(), at("W"));
    b.add_input("X", Shape{6, 4}, Shape{2, 2}, DType::F64, generated(), at("X"));
    b.add_input("Y", Shape{8, 4}, Shape{2, 2}, DType::F64, generated(), at("Y"));
    b.add_join("XW", "X", "W", {1}, {0}, KernelCall("matmul"), at("XW"));
    b.add_join("YW", "Y", "W", {1}, {0}, KernelCall("matmul"), at("YW"));
    b.add_output("XW", "out.h5", "/XW", at("o1"));
    b.add_output("YW", "out.h5", "/YW", at("o2"));
    Program p = b.finish();
    for (int S : {2, 3}) {
        SearchOptions o;
        o.pins = {{"XW", "bcast-right"}, {"YW", "bcast-right"}};
        o.input_placements[*p.find("W")] = Placement::part({0});
        o.input_placements[*p.find("X")] = Placement::part({0});
        o.input_placements[*p.find("Y")] = Placement::part({0});
        auto plans = search_plans(p, S, o);
        REQUIRE(plans.size() == 1);
        const Plan& plan = plans[0].plan;
        std::vector<IaNodeId> bcasts;
        for (const IaNode& n : plan.nodes())
            if (n.op == IaOp::Bcast) bcasts.push_back(n.id);
        REQUIRE(bcasts.size() == 1);
        int consumers = 0;
        for (const IaNode& n : plan.nodes())
            for (IaNodeId in : n.inputs) consumers += in == bcasts[0];
        CHECK(consumers == 2);
        CHECK(plan.node(bcasts[0]).rules == std::vector<std::string>{"R2-6:bcast-right"});
        // W's 4 tuples to the S-1 sites lacking each, once; paper 4 tuples x 4 floats x S once.
        CHECK(plans[0].totals.payload_bytes == 4 * (S - 1) * kTile);
        CHECK(plans[0].totals.paper_floats == Approx(16.0 * S));
    }
    // emit_shuffle shares too, but only an identical move.
    Plan plan(p, 2);
    IaNodeId w = emit_input(plan, *p.find("W"), Placement::part({0}));
    auto s1 = emit_shuffle(plan, w, {1}, "one"), s2 = emit_shuffle(plan, w, {1}, "two");
    auto s3 = emit_shuffle(plan, w, {0, 1}, "one");
    CHECK(s1 == s2);
    CHECK(s3 != s1);
    CHECK(plan.node(*s1).rules == std::vector<std::string>{"one", "two"});
}

TEST_CASE("preagg: a plan file round trip keeps the three nodes", "[preagg]") {
    testing::TempDir dir("preagg");
    const std::string wf =
        dir.write("mm.yaml",
                  "name: mm\n"
                  "inputs:\n"
                  "  A: {shape: [6, 8], tile: [2, 2], generate: {uniform: [-1, 1], seed: 1}}\n"
                  "  B: {shape: [8, 10], tile: [2, 2], generate: {uniform: [-1, 1], seed: 2}}\n"
                  "program:\n"
                  "  - AB: {join: [A, B], on: [[1], [0]], kernel: matmul}\n"
                  "  - C:  {aggregate: AB, by: [0, 2], kernel: add}\n"
                  "outputs:\n"
                  "  C: {file: out/C.h5}\n");
    const Program p = workflow::load_workflow(wf);
    SearchOptions o = cmm_inputs(p);
    o.pins = {{"AB", "local"}, {"C", "preagg[2]"}};
    auto plans = search_plans(p, 3, o);
    REQUIRE(plans.size() == 1);
    workflow::save_plan_file(dir / "p.yaml", plans[0].plan, wf, plans[0].name);
    workflow::LoadedPlan loaded = workflow::load_plan_file(dir / "p.yaml");
    CHECK(ops(loaded.plan) == ops(plans[0].plan));
    CHECK(loaded.plan.results() == plans[0].plan.results());
    CHECK(loaded.plan.node(4).shuffle_dims == KeyPositions{1});
    CHECK(annotate_costs(loaded.plan).payload_bytes == plans[0].totals.payload_bytes);
}
