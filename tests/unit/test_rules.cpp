// Logical rewrite rules (optimizer/logical_rewrites.hpp): each rule alone where its precondition
// holds (new structure, outputs unchanged, reference results bit-identical, no tuple count grows)
// and where it fails (not applied), the predicate re-indexing helpers, and the diag(X+Y) example.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "optimizer/logical_rewrites.hpp"
#include "optimizer/rule_key_text.hpp"
#include "rule_fixtures.hpp"
#include "runtime/reference_evaluator.hpp"
#include "tra/program_builder.hpp"
#include "workflow/workflow_loader.hpp"

using namespace tra;
using namespace tra::optimizer;
using kernels::KernelCall;
using namespace tra::rule_fixtures;

namespace {

// Outputs keep name, type and key set; a node that kept its name never gained tuples; a new
// node is a filter with at most its operand's tuples.
void check_invariants(const Program& before, const Program& after) {
    REQUIRE(after.outputs.size() == before.outputs.size());
    for (std::size_t i = 0; i < before.outputs.size(); ++i) {
        const Node &o = before.node(before.outputs[i].node), &n = after.node(after.outputs[i].node);
        CHECK(n.name == o.name);
        CHECK(n.type.key_arity == o.type.key_arity);
        CHECK(n.type.bound == o.type.bound);
        CHECK(n.keys == o.keys);
        check_same_result(before, o.name, after, n.name);
    }
    for (const Node& n : after.nodes) {
        INFO("node " << n.name);
        if (const auto old = before.find(n.name)) {
            CHECK(n.tuples() <= before.node(*old).tuples());
        } else {
            CHECK(std::holds_alternative<FilterOp>(n.op));
            CHECK(n.tuples() <= after.node(n.inputs.at(0)).tuples());
        }
    }
}

RewriteResult apply_only(const Program& p, const std::string& rule) {
    return apply_rewrites(p, {logical_rewrite_rule(rule)});
}

std::string filter_text(const Node& n) {
    return std::get<FilterOp>(n.op).where.text();
}

}  // namespace

TEST_CASE("predicate texts are re-indexed through positions, named or positional") {
    const auto named_fn = KeyFunction::parse("(i, k, j) -> i == j && -k < 2", 3);
    CHECK(read_positions(named_fn) == std::set<std::size_t>{0, 1, 2});
    CHECK(positional_text(named_fn) == "k0 == k2 && - k1 < 2");
    CHECK(reindexed_text(named_fn, {5, 4, 3}) == "k5 == k3 && - k4 < 2");
    CHECK_FALSE(reindexed_text(named_fn, {0, std::nullopt, 1}));
    const auto pos = KeyFunction::parse("k1 != 0", 2);
    CHECK(read_positions(pos) == std::set<std::size_t>{1});
    CHECK(reindexed_text(pos, {std::nullopt, 0}) == "k0 != 0");
}

TEST_CASE("R1-1 fuses a filter of a filter") {
    ProgramBuilder b = two_inputs();
    b.add_filter("F1", "A", "k0 <= k1", at("F1"));
    b.add_filter("F2", "F1", "(i, j) -> j < 3", at("F2"));
    b.add_aggregate("G", "F2", {0}, KernelCall("add"), at("G"));
    b.add_output("G", "out.h5", "/G", at("G"));
    const Program before = b.finish();
    const RewriteResult r = apply_only(before, "R1-1");

    REQUIRE(r.log.size() == 1);
    CHECK(r.log[0].rule == "R1-1");
    CHECK(r.log[0].node == "F2");
    CHECK_FALSE(r.program.find("F1"));
    const Node& f = named(r.program, "F2");
    CHECK(r.program.node(f.inputs.at(0)).name == "A");
    CHECK(filter_text(f) == "(k0 <= k1) && (k1 < 3)");
    CHECK(f.keys == named(before, "F2").keys);
    check_same_result(before, "F2", r.program, "F2");
    check_invariants(before, r.program);
}

TEST_CASE("R1-1 leaves a filter that something else reads") {
    ProgramBuilder b = two_inputs();
    b.add_filter("F1", "A", "k0 <= k1", at("F1"));
    b.add_filter("F2", "F1", "k1 < 3", at("F2"));
    b.add_transform("T", "F1", KernelCall("relu"), at("T"));
    const Program before = b.finish();
    const RewriteResult r = apply_only(before, "R1-1");
    CHECK(r.log.empty());
    CHECK(r.program.nodes.size() == before.nodes.size());
}

TEST_CASE("R1-6 pushes a predicate on join positions onto both operands") {
    ProgramBuilder b = two_inputs();
    // Output key (i, k, j); k is the join position.
    b.add_join("J", "A", "B", {1}, {0}, KernelCall("matmul"), at("J"));
    b.add_filter("F", "J", "(i, k, j) -> k == 1", at("F"));
    b.add_aggregate("C", "F", {0, 2}, KernelCall("add"), at("C"));
    b.add_output("C", "out.h5", "/C", at("C"));
    const Program before = b.finish();
    const RewriteResult r = apply_only(before, "R1-6");

    REQUIRE(r.log.size() == 1);
    CHECK(r.log[0].node == "F");
    CHECK_FALSE(r.program.find("F"));
    const Node& j = named(r.program, "J");
    CHECK(std::holds_alternative<JoinOp>(j.op));
    const Node &l = r.program.node(j.inputs.at(0)), &rt = r.program.node(j.inputs.at(1));
    CHECK(l.name == "F.A");
    CHECK(filter_text(l) == "k1 == 1");
    CHECK(rt.name == "F.B");
    CHECK(filter_text(rt) == "k0 == 1");
    CHECK(r.program.node(named(r.program, "C").inputs.at(0)).name == "J");
    CHECK(j.keys == named(before, "F").keys);
    CHECK(j.tuples() == 16);  // was 64 in J
    check_same_result(before, "F", r.program, "J");
    check_invariants(before, r.program);
}

TEST_CASE("R1-6 pushes onto one operand when the predicate reads only that side's own keys") {
    const std::string where = GENERATE(std::string("k0 == 2"), std::string("(i, k, j) -> j < 1"));
    ProgramBuilder b = two_inputs();
    b.add_join("J", "A", "B", {1}, {0}, KernelCall("matmul"), at("J"));
    b.add_filter("F", "J", where, at("F"));
    const Program before = b.finish();
    const RewriteResult r = apply_only(before, "R1-6");

    REQUIRE(r.log.size() == 1);
    const Node& j = named(r.program, "J");
    const bool left = where == "k0 == 2";
    const Node &l = r.program.node(j.inputs.at(0)), &rt = r.program.node(j.inputs.at(1));
    CHECK(l.name == (left ? "F.A" : "A"));
    CHECK(rt.name == (left ? "B" : "F.B"));
    if (left) CHECK(filter_text(l) == "k0 == 2");
    if (!left) CHECK(filter_text(rt) == "k1 < 1");
    check_same_result(before, "F", r.program, "J");
    check_invariants(before, r.program);
}

TEST_CASE("R1-6 leaves a predicate mixing both operands' own keys") {
    ProgramBuilder b = two_inputs();
    b.add_join("J", "A", "B", {1}, {0}, KernelCall("matmul"), at("J"));
    b.add_filter("F", "J", "k0 == k2", at("F"));  // i from A, j from B
    const Program before = b.finish();
    const RewriteResult r = apply_only(before, "R1-6");
    CHECK(r.log.empty());
    CHECK(named(r.program, "J").inputs == named(before, "J").inputs);
    CHECK(std::holds_alternative<FilterOp>(named(r.program, "F").op));
}

TEST_CASE("R1-6 leaves a join that something else reads") {
    ProgramBuilder b = two_inputs();
    b.add_join("J", "A", "B", {0, 1}, {0, 1}, KernelCall("add"), at("J"));
    b.add_filter("F", "J", "k0 == k1", at("F"));
    b.add_transform("T", "J", KernelCall("relu"), at("T"));
    const RewriteResult r = apply_only(b.finish(), "R1-6");
    CHECK(r.log.empty());
}

TEST_CASE("R1-6 on an output filter gives the join the filter's name") {
    ProgramBuilder b = two_inputs();
    b.add_join("J", "A", "B", {0, 1}, {0, 1}, KernelCall("add"), at("J"));
    b.add_filter("F", "J", "k0 < 2", at("F"));  // rows 0..1 of the key grid: still dense
    b.add_output("F", "out.h5", "/F", at("F"));
    const Program before = b.finish();
    const RewriteResult r = apply_only(before, "R1-6");
    REQUIRE(r.log.size() == 1);
    CHECK_FALSE(r.program.find("J"));
    CHECK(std::holds_alternative<JoinOp>(named(r.program, "F").op));
    check_invariants(before, r.program);
}

TEST_CASE("R1-5 pushes a filter below an aggregation, re-indexed onto the group keys") {
    ProgramBuilder b = two_inputs();
    b.add_aggregate("G", "A", {1}, KernelCall("add"), at("G"));
    b.add_filter("F", "G", "(j) -> j != 2", at("F"));
    b.add_transform("T", "F", KernelCall("relu"), at("T"));
    const Program before = b.finish();
    const RewriteResult r = apply_only(before, "R1-5");

    REQUIRE(r.log.size() == 1);
    CHECK(r.log[0].rule == "R1-5");
    CHECK_FALSE(r.program.find("F"));
    const Node& g = named(r.program, "G");
    const Node& pushed = r.program.node(g.inputs.at(0));
    CHECK(pushed.name == "F.A");
    CHECK(filter_text(pushed) == "k1 != 2");
    CHECK(pushed.tuples() == 12);
    CHECK(g.keys == named(before, "F").keys);
    CHECK(r.program.node(named(r.program, "T").inputs.at(0)).name == "G");
    check_same_result(before, "F", r.program, "G");
    check_same_result(before, "T", r.program, "T");
    check_invariants(before, r.program);
}

TEST_CASE("R1-5 leaves an aggregation that something else reads") {
    ProgramBuilder b = two_inputs();
    b.add_aggregate("G", "A", {1}, KernelCall("add"), at("G"));
    b.add_filter("F", "G", "k0 != 2", at("F"));
    b.add_transform("T", "G", KernelCall("relu"), at("T"));
    const RewriteResult r = apply_only(b.finish(), "R1-5");
    CHECK(r.log.empty());
}

TEST_CASE("all rules to a fixpoint: fuse, then push through the join, then fuse again") {
    ProgramBuilder b = two_inputs();
    b.add_filter("FA", "A", "k0 < 3", at("FA"));
    b.add_join("J", "FA", "B", {0, 1}, {0, 1}, KernelCall("add"), at("J"));
    b.add_filter("F1", "J", "k0 == k1", at("F1"));
    b.add_filter("F2", "F1", "k1 > 0", at("F2"));
    const Program before = b.finish();
    const RewriteResult r = apply_logical_rewrites(before);

    REQUIRE(r.log.size() == 3);
    CHECK(r.log[0].rule == "R1-1");  // F2 absorbs F1
    CHECK(r.log[1].rule == "R1-6");  // pushed onto FA's result and B
    CHECK(r.log[2].rule == "R1-1");  // the pushed filter absorbs FA
    const Node& j = named(r.program, "J");
    CHECK(r.program.node(j.inputs.at(0)).name == "F2.FA");
    CHECK(r.program.node(r.program.node(j.inputs.at(0)).inputs.at(0)).name == "A");
    CHECK(j.tuples() == 2);  // diagonal keys 1 and 2
    check_same_result(before, "F2", r.program, "J");
    check_invariants(before, r.program);
    // A fixpoint: nothing more applies.
    CHECK(apply_logical_rewrites(r.program).log.empty());
}

TEST_CASE("diag(X+Y): R1-6 filters both operands and the join drops from 25 to 5 tuples") {
    const Program before = workflow::load_workflow(TRA_SOURCE_DIR "/plans/examples/diag.yaml");
    REQUIRE(named(before, "S").tuples() == 25);
    const RewriteResult r = apply_only(before, "R1-6");  // the whole chain: test_map_rules.cpp

    REQUIRE(r.log.size() == 1);
    CHECK(r.log[0].rule == "R1-6");
    CHECK(r.log[0].node == "F");
    CHECK(r.log[0].str().find("pushed onto both operands of S") != std::string::npos);
    const Node& s = named(r.program, "S");
    CHECK(s.tuples() == 5);
    CHECK(r.program.node(s.inputs.at(0)).name == "F.X");
    CHECK(r.program.node(s.inputs.at(1)).name == "F.Y");
    CHECK(r.program.node(named(r.program, "K").inputs.at(0)).name == "S");
    CHECK(r.program.node(r.program.outputs.at(0).node).name == "Dg");
    check_invariants(before, r.program);
}
