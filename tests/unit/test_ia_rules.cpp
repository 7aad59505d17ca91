// Physical rewrite rules over IA plans (optimizer/ia_rules.hpp): each rule where its
// precondition holds (a rewrite that validates and costs no more) and where it does not (no
// rewrite offered), the corrected R2-4 and R2-7 conditions against the literal ones, and the
// thesis' matrix-multiply chains: the Table 1 plan rewritten by R2-6 then R2-4/R2-7 is the
// search's BMM or CMM plan, to the byte.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ia/initial_plan.hpp"
#include "ia/plan_validator.hpp"
#include "optimizer/emit.hpp"
#include "optimizer/ia_rules.hpp"
#include "optimizer/search.hpp"
#include "program_fixtures.hpp"
#include "workflow/workflow_loader.hpp"

using namespace tra;
using namespace tra::optimizer;
using ia::IaNodeId;
using ia::IaOp;
using ia::Placement;
using ia::Plan;
using kernels::KernelCall;
using tra::testing::at;
using tra::testing::generated;

namespace {

// A [8, 8] and B [8, 8] in [2, 2] tiles: 16 tuples of 32 bytes each.
ProgramBuilder two_inputs() {
    ProgramBuilder b("ia_rules", DType::F64);
    b.add_input("A", Shape{8, 8}, Shape{2, 2}, DType::F64, generated(), at("A"));
    b.add_input("B", Shape{8, 8}, Shape{2, 2}, DType::F64, generated(), at("B"));
    return b;
}

NodeId id_of(const Program& p, const std::string& name) {
    INFO("node " << name);
    REQUIRE(p.find(name));
    return *p.find(name);
}

// Appends a node by hand; its placement is inferred, so the node must be valid.
IaNodeId add(Plan& plan, IaOp op, NodeId origin, std::vector<IaNodeId> inputs,
             KeyPositions dims = {}) {
    const Node& n = plan.program().node(origin);
    std::optional<Operator> logical;
    if (!ia::is_enforcer(op)) logical = n.op;
    auto id = emit_node(plan, op, origin, std::move(inputs), "test", logical, std::move(dims));
    REQUIRE(id);
    if (!ia::is_enforcer(op)) plan.set_result(origin, *id);
    return *id;
}

std::int64_t payload(Plan plan) {
    return ia::annotate_costs(plan).payload_bytes;
}

// The rule's rewrites at `at`, each checked: it builds, validates and costs no more exact bytes.
std::vector<Plan> rewrites(const std::string& rule, const Plan& plan, IaNodeId at) {
    std::vector<Plan> out;
    for (IaRewrite& rw : ia_rule(rule).try_at(plan, at)) {
        INFO(rule << " at #" << at << ": " << rw.detail);
        std::optional<Plan> built = rw.draft.build();
        REQUIRE(built);
        CHECK_NOTHROW(ia::validate(*built));
        out.push_back(std::move(*built));
    }
    return out;
}

bool has_op(const Plan& plan, IaOp op) {
    for (const auto& n : plan.nodes())
        if (n.op == op) return true;
    return false;
}

}  // namespace

TEST_CASE("R2-1 collapses a shuffle of a shuffle into one move") {
    ProgramBuilder b = two_inputs();
    b.add_aggregate("G", "A", {0}, KernelCall("add"), at("G"));
    b.add_output("G", "out.h5", "/G", at("G"));
    const Program p = b.finish();
    Plan plan(p, 3);
    const IaNodeId a = emit_input(plan, id_of(p, "A"), Placement::part({1}));
    plan.set_result(id_of(p, "A"), a);
    const IaNodeId s1 = add(plan, IaOp::Bcast, id_of(p, "A"), {a});
    const IaNodeId s2 = add(plan, IaOp::Shuffle, id_of(p, "A"), {s1}, {0});
    const IaNodeId g = add(plan, IaOp::LocalAggregate, id_of(p, "G"), {s2});
    ia::validate(plan);

    const auto out = rewrites("R2-1", plan, s2);
    REQUIRE(out.size() == 1);
    CHECK(out[0].size() == plan.size() - 1);
    CHECK_FALSE(has_op(out[0], IaOp::Bcast));
    CHECK(payload(out[0]) < payload(plan));
    CHECK(rewrites("R2-1", plan, s1).empty());  // its input is no enforcer
    CHECK(rewrites("R2-1", plan, g).empty());
}

TEST_CASE("R2-2 filters before a bcast, so rejected tuples are not moved") {
    ProgramBuilder b = two_inputs();
    b.add_filter("F", "A", "k0 == k1", at("F"));
    b.add_aggregate("G", "F", {0}, KernelCall("add"), at("G"));
    b.add_output("G", "out.h5", "/G", at("G"));
    const Program p = b.finish();
    Plan plan(p, 2);
    const IaNodeId a = emit_input(plan, id_of(p, "A"), Placement::part({0}));
    plan.set_result(id_of(p, "A"), a);
    const IaNodeId bc = add(plan, IaOp::Bcast, id_of(p, "A"), {a});
    const IaNodeId f = add(plan, IaOp::LocalFilter, id_of(p, "F"), {bc});
    add(plan, IaOp::LocalAggregate, id_of(p, "G"), {f});
    ia::validate(plan);

    const auto out = rewrites("R2-2", plan, f);
    REQUIRE(out.size() == 1);
    CHECK(out[0].node(1).op == IaOp::LocalFilter);
    CHECK(out[0].node(2).op == IaOp::Bcast);
    CHECK(payload(out[0]) * 4 == payload(plan));  // 4 of 16 tiles pass
    CHECK(rewrites("R2-2", plan, bc).empty());
    CHECK(rewrites("R2-2", ia::compile_initial(p, 2), 1).empty());  // a filter of an input
}

TEST_CASE("R2-3 maps before a bcast, and before a shuffle only when keys stay") {
    ProgramBuilder b = two_inputs();
    b.add_transform("D", "A", KernelCall("diag"), at("D"));
    b.add_aggregate("G", "D", {0}, KernelCall("add"), at("G"));
    b.add_rekey("K", "B", "(i, j) -> (j, i)", at("K"));
    b.add_aggregate("H", "K", {0}, KernelCall("add"), at("H"));
    b.add_output("G", "out.h5", "/G", at("G"));
    b.add_output("H", "out.h5", "/H", at("H"));
    const Program p = b.finish();
    for (IaOp op : {IaOp::Bcast, IaOp::Shuffle}) {
        INFO(ia::op_name(op));
        Plan plan(p, 2);
        const IaNodeId a = emit_input(plan, id_of(p, "A"), Placement::part({1}));
        const IaNodeId bb = emit_input(plan, id_of(p, "B"), Placement::part({1}));
        plan.set_result(id_of(p, "A"), a);
        plan.set_result(id_of(p, "B"), bb);
        const KeyPositions dims = op == IaOp::Shuffle ? KeyPositions{0} : KeyPositions{};
        const IaNodeId d =
            add(plan, IaOp::Map, id_of(p, "D"), {add(plan, op, id_of(p, "A"), {a}, dims)});
        add(plan, IaOp::LocalAggregate, id_of(p, "G"), {d});
        const IaNodeId k =
            add(plan, IaOp::Map, id_of(p, "K"), {add(plan, op, id_of(p, "B"), {bb}, dims)});
        add(plan, IaOp::LocalAggregate, id_of(p, "H"),
            {op == IaOp::Shuffle ? add(plan, IaOp::Shuffle, id_of(p, "K"), {k}, {0}) : k});
        ia::validate(plan);

        const auto out = rewrites("R2-3", plan, d);
        REQUIRE(out.size() == 1);
        CHECK(payload(out[0]) < payload(plan));  // diagonals [2] move instead of [2, 2] tiles
        // A rekey changes the keys a shuffle places by; a bcast places every key everywhere.
        CHECK(rewrites("R2-3", plan, k).size() == (op == IaOp::Bcast ? 1u : 0u));
    }
}

TEST_CASE("R2-4 drops a shuffle only when the input ALREADY is Part(D), D within the group keys") {
    ProgramBuilder b = two_inputs();
    b.add_aggregate("G", "A", {0}, KernelCall("add"), at("G"));
    b.add_output("G", "out.h5", "/G", at("G"));
    const Program p = b.finish();
    SECTION("holds: A on Part[0], grouped by [0]") {
        const Plan plan = ia::compile_initial(p, 3);  // shuffle[0] of a Part[0] input
        const auto out = rewrites("R2-4", plan, 2);
        REQUIRE(out.size() == 1);
        CHECK_FALSE(has_op(out[0], IaOp::Shuffle));
        CHECK(payload(out[0]) == payload(plan));
        CHECK(out[0].node(1).placement == Placement::part({0}));
    }
    SECTION("does not hold: A on Part[1]") {
        ia::CompileOptions o;
        o.input_placements[id_of(p, "A")] = Placement::part({1});
        CHECK(rewrites("R2-4", ia::compile_initial(p, 3, o), 2).empty());
    }
}

TEST_CASE(
    "R2-4 and R2-7 keep CMM's shuffle of partial products (the literal conditions would not)") {
    ProgramBuilder b = two_inputs();
    b.add_join("AB", "A", "B", {1}, {0}, KernelCall("matmul"), at("AB"));
    b.add_aggregate("C", "AB", {0, 2}, KernelCall("add"), at("C"));
    b.add_output("C", "out.h5", "/C", at("C"));
    const Program p = b.finish();
    Plan plan(p, 2);
    const IaNodeId a = emit_input(plan, id_of(p, "A"), Placement::part({1}));
    const IaNodeId bb = emit_input(plan, id_of(p, "B"), Placement::part({0}));
    plan.set_result(id_of(p, "A"), a);
    plan.set_result(id_of(p, "B"), bb);
    const IaNodeId j = add(plan, IaOp::LocalJoin, id_of(p, "AB"), {a, bb});  // Part[1]
    const IaNodeId s = add(plan, IaOp::Shuffle, id_of(p, "AB"), {j}, {0, 2});
    const IaNodeId c = add(plan, IaOp::LocalAggregate, id_of(p, "C"), {s});
    ia::validate(plan);
    // Literally, partDims [0, 2] ⊆ by [0, 2] holds; but the join output is Part[1], not within.
    CHECK(rewrites("R2-4", plan, c).empty());
    CHECK(rewrites("R2-7", plan, s).empty());
}

TEST_CASE("R2-7 drops a shuffle after a join already on Part(jl), jl within the shuffle's dims") {
    ProgramBuilder b = two_inputs();
    b.add_join("AB", "A", "B", {1}, {0}, KernelCall("matmul"), at("AB"));
    b.add_aggregate("C", "AB", {0, 1}, KernelCall("add"), at("C"));  // sum over j
    b.add_output("C", "out.h5", "/C", at("C"));
    const Program p = b.finish();
    Plan plan(p, 2);
    const IaNodeId a = emit_input(plan, id_of(p, "A"), Placement::part({1}));
    const IaNodeId bb = emit_input(plan, id_of(p, "B"), Placement::part({0}));
    plan.set_result(id_of(p, "A"), a);
    plan.set_result(id_of(p, "B"), bb);
    const IaNodeId j = add(plan, IaOp::LocalJoin, id_of(p, "AB"), {a, bb});
    const IaNodeId s = add(plan, IaOp::Shuffle, id_of(p, "AB"), {j}, {0, 1});
    add(plan, IaOp::LocalAggregate, id_of(p, "C"), {s});
    ia::validate(plan);

    const auto out = rewrites("R2-7", plan, s);
    REQUIRE(out.size() == 1);
    CHECK_FALSE(has_op(out[0], IaOp::Shuffle));
    CHECK(payload(out[0]) < payload(plan));
    CHECK(rewrites("R2-7", plan, j).empty());
}

TEST_CASE("R2-5 pre-aggregates before a shuffle when groups span sites") {
    ProgramBuilder b = two_inputs();
    b.add_aggregate("G", "A", {0}, KernelCall("add"), at("G"));
    b.add_tile("T", "B", 1, 1, at("T"));
    b.add_concat("C", "T", 2, 1, at("C"));
    b.add_output("G", "out.h5", "/G", at("G"));
    b.add_output("C", "out.h5", "/C", at("C"));
    const Program p = b.finish();
    ia::CompileOptions o;
    o.input_placements[id_of(p, "A")] = Placement::part({1});  // each row block on every site
    const Plan plan = ia::compile_initial(p, 2, o);
    const IaNodeId g = *plan.result(id_of(p, "G"));
    const auto out = rewrites("R2-5", plan, g);
    REQUIRE(out.size() == 1);
    CHECK(has_op(out[0], IaOp::PartialAggregate));
    CHECK(payload(out[0]) < payload(plan));  // one partial per row and site, not every tile
    // A concat is ordered, not a fold: no combiner.
    CHECK(rewrites("R2-5", plan, *plan.result(id_of(p, "C"))).empty());
    // The driver keeps pre-aggregation only where it lowers the cost: not on Part[0].
    const IaRewriteResult kept = apply_ia_rules(ia::compile_initial(p, 2), {ia_rule("R2-5")});
    CHECK(kept.log.empty());
}

TEST_CASE("R2-6 offers the other join strategies, each a valid plan") {
    ProgramBuilder b = two_inputs();
    b.add_join("AB", "A", "B", {1}, {0}, KernelCall("matmul"), at("AB"));
    b.add_aggregate("C", "AB", {0, 2}, KernelCall("add"), at("C"));
    b.add_output("C", "out.h5", "/C", at("C"));
    const Program p = b.finish();
    const Plan plan = ia::compile_initial(p, 3);  // bcast-left
    const IaNodeId j = *plan.result(id_of(p, "AB"));
    const auto out = rewrites("R2-6", plan, j);
    REQUIRE(out.size() == 2);  // bcast-right, cmm: not the join's own bcast-left
    CHECK(out[0].node(*out[0].result(id_of(p, "AB"))).rules.back() == "R2-6:bcast-right");
    CHECK(out[1].node(*out[1].result(id_of(p, "AB"))).rules.back() == "R2-6:cmm");
    CHECK(rewrites("R2-6", plan, *plan.result(id_of(p, "C"))).empty());
}

namespace {

// The search's plan `name` with A and B fixed on Part[0], as the compiled plan has them.
ia::PlanTotals searched(const Program& p, int sites, const std::string& name) {
    SearchOptions o;
    o.top_k = 1000;
    o.input_placements[id_of(p, "A")] = Placement::part({0});
    o.input_placements[id_of(p, "B")] = Placement::part({0});
    for (const RankedPlan& r : search_plans(p, sites, o))
        if (r.name == name) return r.totals;
    FAIL("the search has no plan " << name);
    return {};
}

// The compiled plan with R2-6's alternative `strategy` at the join, then R2-7 and R2-4.
IaRewriteResult chain(const Program& p, int sites, const std::string& strategy) {
    const Plan compiled = ia::compile_initial(p, sites);
    for (IaRewrite& rw : ia_rule("R2-6").try_at(compiled, *compiled.result(id_of(p, "AB"))))
        if (rw.detail == strategy) {
            std::optional<Plan> plan = rw.draft.build();
            REQUIRE(plan);
            return apply_ia_rules(*plan, {ia_rule("R2-7"), ia_rule("R2-4")});
        }
    FAIL("R2-6 offers no " << strategy);
    return apply_ia_rules(compiled, {});
}

}  // namespace

TEST_CASE("matrix multiply: Table 1, then R2-6, then R2-4/R2-7 is the search's BMM and CMM") {
    for (const char* shape : {"mm-common-k", "mm-two-large", "mm-general"}) {
        const Program p = workflow::load_workflow(
            std::string(TRA_SOURCE_DIR "/plans/paper/scaled/") + shape + ".yaml");
        for (int sites : {2, 3, 4}) {
            INFO(shape << " on " << sites << " sites");
            const IaRewriteResult bmm = chain(p, sites, "bcast-right");
            const ia::PlanTotals bmm_searched = searched(p, sites, "AB=bcast-right,C=local");
            CHECK(bmm.totals.payload_bytes == bmm_searched.payload_bytes);
            CHECK(bmm.totals.overhead_bytes == bmm_searched.overhead_bytes);
            CHECK(bmm.totals.paper_floats == bmm_searched.paper_floats);
            REQUIRE(bmm.log.size() == 1);  // the shuffle after the join goes
            CHECK(bmm.log[0].rule == "R2-7");

            const IaRewriteResult cmm = chain(p, sites, "cmm");
            const ia::PlanTotals cmm_searched = searched(p, sites, "AB=cmm,C=shuffle");
            CHECK(cmm.totals.payload_bytes == cmm_searched.payload_bytes);
            CHECK(cmm.totals.overhead_bytes == cmm_searched.overhead_bytes);
            CHECK(cmm.totals.paper_floats == cmm_searched.paper_floats);
            CHECK(cmm.log.empty());  // CMM keeps the shuffle of partial products

            // All rules from the Table 1 plan: valid, never dearer, and as cheap as the best
            // searched plan built from the strategies the rules know.
            const Plan compiled = ia::compile_initial(p, sites);
            const IaRewriteResult all = apply_ia_rules(compiled);
            CHECK_NOTHROW(ia::validate(all.plan));
            CHECK(all.totals.payload_bytes <= payload(compiled));
            std::int64_t best = payload(compiled);
            for (const char* j : {"bcast-left", "bcast-right", "cmm"})
                for (const char* c : {"local", "shuffle", "preagg"})
                    if (auto t = std::string("AB=") + j + ",C=" + c; true) {
                        SearchOptions o;
                        o.top_k = 1000;
                        o.input_placements[id_of(p, "A")] = Placement::part({0});
                        o.input_placements[id_of(p, "B")] = Placement::part({0});
                        for (const RankedPlan& r : search_plans(p, sites, o))
                            if (r.name == t) best = std::min(best, r.totals.payload_bytes);
                    }
            CHECK(all.totals.payload_bytes == best);
        }
    }
}

TEST_CASE("the search's plans are normal forms of the strategy-preserving rules") {
    // normalise_plan ran on every complete plan, so none of R2-1, R2-2, R2-3, R2-7, R2-4 applies
    // to a returned plan any more, on every example and scaled paper workflow.
    const std::vector<IaRule> normal = {ia_rule("R2-1"), ia_rule("R2-2"), ia_rule("R2-3"),
                                        ia_rule("R2-7"), ia_rule("R2-4")};
    for (const char* wf :
         {"paper/scaled/mm-common-k", "paper/scaled/nn-wide", "paper/scaled/ffnn-speech",
          "examples/diag", "examples/ffnn", "examples/nn_search", "examples/shortest_paths",
          "examples/tile_concat"}) {
        const Program p =
            workflow::load_workflow(std::string(TRA_SOURCE_DIR "/plans/") + wf + ".yaml");
        for (int sites : {1, 2, 3, 4}) {
            INFO(wf << " on " << sites << " sites");
            for (const RankedPlan& r : search_plans(p, sites)) {
                INFO(r.name);
                CHECK(apply_ia_rules(r.plan, normal).log.empty());
            }
        }
    }
}

TEST_CASE("the search's concat runs in place when the tiles are already grouped (R2-4)") {
    const Program p = workflow::load_workflow(TRA_SOURCE_DIR "/plans/examples/tile_concat.yaml");
    for (int sites : {2, 3, 4}) {
        INFO(sites << " sites");
        const auto plans = search_plans(p, sites);
        REQUIRE(plans.size() == 1);
        // Table 1 shuffles the tiles to Part of the concat's group key; T is already Part on
        // one of its positions, so nothing moves (Table 1 moved 2304 bytes on 2 sites).
        CHECK(plans[0].totals.payload_bytes == 0);
        const auto& back = plans[0].plan.node(*plans[0].plan.result(id_of(p, "Back")));
        CHECK(back.rules.back() == "R2-4");
        CHECK_FALSE(has_op(plans[0].plan, IaOp::Shuffle));
        CHECK(payload(ia::compile_initial(p, sites)) > 0);
    }
}

TEST_CASE("every rule from the Table 1 plan: valid, never dearer, on every example workflow") {
    for (const char* wf : {"paper/scaled/nn-wide", "paper/scaled/ffnn-speech", "examples/diag",
                           "examples/ffnn", "examples/nn_search", "examples/shortest_paths",
                           "examples/tile_concat", "examples/matmul"}) {
        const Program p =
            workflow::load_workflow(std::string(TRA_SOURCE_DIR "/plans/") + wf + ".yaml");
        for (int sites : {1, 2, 3, 4}) {
            INFO(wf << " on " << sites << " sites");
            const Plan compiled = ia::compile_initial(p, sites);
            const IaRewriteResult r = apply_ia_rules(compiled);
            CHECK_NOTHROW(ia::validate(r.plan));
            Plan plan = compiled;
            const ia::PlanTotals before = ia::annotate_costs(plan);
            CHECK(r.totals.payload_bytes <= before.payload_bytes);
            CHECK(r.totals.total_bytes() <= before.total_bytes());
            CHECK(r.log.empty() == (r.totals.payload_bytes == before.payload_bytes &&
                                    r.totals.total_bytes() == before.total_bytes() &&
                                    r.plan.size() == compiled.size()));
        }
    }
}
