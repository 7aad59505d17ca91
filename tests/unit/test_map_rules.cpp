// Logical rewrite rules over maps (optimizer/rule_map_*.cpp, rule_filter_map_pushdown.cpp):
// R1-2, R1-3, R1-4 and R1-7 each alone where its precondition holds (new structure, outputs
// with the same name, type, key set and bit-identical reference results, no relation grows) and
// where it does not (not applied), and the thesis' diag(X+Y) chain R1-6, R1-2, R1-7.
#include <catch2/catch.hpp>
#include <string>

#include "optimizer/logical_rewrites.hpp"
#include "optimizer/rule_key_text.hpp"
#include "rule_fixtures.hpp"
#include "workflow/workflow_loader.hpp"

using namespace tra;
using namespace tra::optimizer;
using namespace tra::rule_fixtures;
using kernels::KernelCall;

namespace {

// Outputs keep name, type, key set and values; a node that kept its name has no more tuples or
// bytes than before; a new node has no more tuples or bytes than its first operand.
void check_invariants(const Program& before, const Program& after) {
    REQUIRE(after.outputs.size() == before.outputs.size());
    for (std::size_t i = 0; i < before.outputs.size(); ++i) {
        const Node &o = before.node(before.outputs[i].node), &n = after.node(after.outputs[i].node);
        CHECK(n.name == o.name);
        CHECK(n.type == o.type);
        CHECK(n.keys == o.keys);
        check_same_result(before, o.name, after, n.name);
    }
    for (const Node& n : after.nodes) {
        INFO("node " << n.name);
        if (const auto old = before.find(n.name)) {
            CHECK(n.tuples() <= before.node(*old).tuples());
            CHECK(n.bytes() <= before.node(*old).bytes());
        } else {
            CHECK(n.tuples() <= after.node(n.inputs.at(0)).tuples());
            CHECK(n.bytes() <= after.node(n.inputs.at(0)).bytes());
        }
    }
}

RewriteResult apply_only(const Program& p, const std::string& rule) {
    return apply_rewrites(p, {logical_rewrite_rule(rule)});
}

const std::string& operand(const Program& p, const std::string& name, std::size_t i = 0) {
    return p.node(named(p, name).inputs.at(i)).name;
}

}  // namespace

TEST_CASE("rekey results are split into positional texts and substituted") {
    CHECK(result_texts(KeyFunction::parse("(i, j) -> (j, i + 1)", 2)) ==
          std::vector<std::string>{"k1", "k0 + 1"});
    CHECK(result_texts(KeyFunction::parse("(k1 + 1) * 2", 2)) ==
          std::vector<std::string>{"( k1 + 1 ) * 2"});
    CHECK(result_texts(KeyFunction::parse("((k0), k1 % 2)", 2)) ==
          std::vector<std::string>{"( k0 )", "k1 % 2"});
    CHECK(substituted_text(KeyFunction::parse("(a, b) -> (b, a)", 2), {"k1", "k0 + 1"}) ==
          "( (k0 + 1) , (k1) )");
}

TEST_CASE("R1-2 composes a rekey of a rekey into one key function") {
    ProgramBuilder b = two_inputs();
    b.add_rekey("K1", "A", "(i, j) -> (j, i + 1)", at("K1"));
    b.add_rekey("K2", "K1", "(a, b) -> (b - 1, a, 0)", at("K2"));
    b.add_aggregate("G", "K2", {0, 1}, KernelCall("add"), at("G"));
    b.add_output("G", "out.h5", "/G", at("G"));
    const Program before = b.finish();
    const RewriteResult r = apply_only(before, "R1-2");

    REQUIRE(r.log.size() == 1);
    CHECK(r.log[0].rule == "R1-2");
    CHECK(r.log[0].node == "K2");
    CHECK_FALSE(r.program.find("K1"));
    CHECK(operand(r.program, "K2") == "A");
    CHECK(named(r.program, "K2").keys == named(before, "K2").keys);
    check_same_result(before, "K2", r.program, "K2");
    check_invariants(before, r.program);
}

TEST_CASE("R1-2 applies a transform before the rekey below it") {
    ProgramBuilder b = two_inputs();
    b.add_rekey("K", "A", "(i, j) -> (j, i)", at("K"));
    b.add_transform("T", "K", KernelCall("diag"), at("T"));
    b.add_output("T", "out.h5", "/T", at("T"));
    const Program before = b.finish();
    const RewriteResult r = apply_only(before, "R1-2");

    REQUIRE(r.log.size() == 1);
    // T is an output, so the rekey on top takes its name; the transform reads A.
    CHECK(std::holds_alternative<RekeyOp>(named(r.program, "T").op));
    CHECK(operand(r.program, "T") == "T.A");
    CHECK(std::holds_alternative<TransformOp>(named(r.program, "T.A").op));
    CHECK(operand(r.program, "T.A") == "A");
    check_invariants(before, r.program);
}

TEST_CASE("R1-2 leaves a rekey that something else reads, and a map over a non-rekey") {
    ProgramBuilder b = two_inputs();
    b.add_rekey("K1", "A", "(i, j) -> (j, i)", at("K1"));
    b.add_rekey("K2", "K1", "(i, j) -> (j, i)", at("K2"));
    b.add_transform("T", "B", KernelCall("diag"), at("T"));
    b.add_output("K1", "out.h5", "/K1", at("K1"));
    b.add_output("K2", "out.h5", "/K2", at("K2"));
    b.add_output("T", "out.h5", "/T", at("T"));
    CHECK(apply_only(b.finish(), "R1-2").log.empty());
}

TEST_CASE("R1-3 filters before a transform, so fewer tiles are transformed") {
    ProgramBuilder b = two_inputs();
    b.add_transform("T", "A", KernelCall("relu"), at("T"));
    b.add_filter("F", "T", "(i, j) -> i == j", at("F"));
    b.add_aggregate("G", "F", {0}, KernelCall("add"), at("G"));
    b.add_output("G", "out.h5", "/G", at("G"));
    const Program before = b.finish();
    const RewriteResult r = apply_only(before, "R1-3");

    REQUIRE(r.log.size() == 1);
    CHECK(r.log[0].rule == "R1-3");
    CHECK(operand(r.program, "G") == "T");
    CHECK(operand(r.program, "T") == "F.A");
    CHECK(named(r.program, "F.A").tuples() == 4);
    CHECK(named(r.program, "T").tuples() == 4);  // 16 before
    check_invariants(before, r.program);
}

TEST_CASE("R1-3 leaves a transform that something else reads, and a filter of a rekey") {
    ProgramBuilder b = two_inputs();
    b.add_transform("T", "A", KernelCall("relu"), at("T"));
    b.add_filter("F", "T", "k0 == k1", at("F"));
    b.add_rekey("K", "B", "(i, j) -> (j, i)", at("K"));
    b.add_filter("FK", "K", "k0 == 0", at("FK"));
    b.add_aggregate("G", "F", {0}, KernelCall("add"), at("G"));
    b.add_aggregate("GK", "FK", {1}, KernelCall("add"), at("GK"));
    b.add_output("T", "out.h5", "/T", at("T"));
    b.add_output("G", "out.h5", "/G", at("G"));
    b.add_output("GK", "out.h5", "/GK", at("GK"));
    CHECK(apply_only(b.finish(), "R1-3").log.empty());
}

TEST_CASE("R1-4 applies a shrinking map that distributes over the aggregate below it") {
    ProgramBuilder b = two_inputs();
    b.add_aggregate("G", "A", {0}, KernelCall("add"), at("G"));
    b.add_transform("D", "G", KernelCall("diag"), at("D"));
    b.add_output("D", "out.h5", "/D", at("D"));
    const Program before = b.finish();
    const RewriteResult r = apply_only(before, "R1-4");

    REQUIRE(r.log.size() == 1);
    CHECK(r.log[0].rule == "R1-4");
    CHECK(r.log[0].detail.find("diag distributes over add") != std::string::npos);
    // D is an output: the aggregate takes its name and reads the diagonals of A's tiles.
    CHECK(std::holds_alternative<AggregateOp>(named(r.program, "D").op));
    CHECK(operand(r.program, "D") == "D.A");
    CHECK(named(r.program, "D.A").bytes() * 2 == named(before, "A").bytes());
    check_invariants(before, r.program);
}

TEST_CASE("R1-4 needs distributivity and a map that shrinks tiles") {
    SECTION("relu distributes over max but does not shrink tiles") {
        ProgramBuilder b = two_inputs();
        b.add_aggregate("G", "A", {0}, KernelCall("max"), at("G"));
        b.add_transform("T", "G", KernelCall("relu"), at("T"));
        b.add_output("T", "out.h5", "/T", at("T"));
        CHECK(apply_only(b.finish(), "R1-4").log.empty());
    }
    SECTION("row_sum shrinks tiles but does not distribute over max") {
        ProgramBuilder b = two_inputs();
        b.add_aggregate("G", "A", {0}, KernelCall("max"), at("G"));
        b.add_transform("T", "G", KernelCall("row_sum"), at("T"));
        b.add_output("T", "out.h5", "/T", at("T"));
        CHECK(apply_only(b.finish(), "R1-4").log.empty());
    }
    SECTION("the aggregate is an output") {
        ProgramBuilder b = two_inputs();
        b.add_aggregate("G", "A", {0}, KernelCall("add"), at("G"));
        b.add_transform("T", "G", KernelCall("diag"), at("T"));
        b.add_output("G", "out.h5", "/G", at("G"));
        b.add_output("T", "out.h5", "/T", at("T"));
        CHECK(apply_only(b.finish(), "R1-4").log.empty());
    }
}

TEST_CASE("R1-7 pushes a map that distributes over the join kernel into both operands") {
    ProgramBuilder b = two_inputs();
    b.add_join("S", "A", "B", {0, 1}, {0, 1}, KernelCall("add"), at("S"));
    b.add_transform("D", "S", KernelCall("diag"), at("D"));
    b.add_aggregate("G", "D", {0}, KernelCall("add"), at("G"));
    b.add_output("G", "out.h5", "/G", at("G"));
    const Program before = b.finish();
    const RewriteResult r = apply_only(before, "R1-7");

    REQUIRE(r.log.size() == 1);
    CHECK(r.log[0].rule == "R1-7");
    CHECK(operand(r.program, "G") == "S");  // the join keeps its name for pins
    CHECK(operand(r.program, "S", 0) == "D.A");
    CHECK(operand(r.program, "S", 1) == "D.B");
    CHECK(named(r.program, "S").type == named(before, "D").type);
    check_invariants(before, r.program);
}

TEST_CASE("R1-7 needs distributivity over the join kernel") {
    ProgramBuilder b = two_inputs();
    b.add_join("S", "A", "B", {1}, {0}, KernelCall("matmul"), at("S"));
    b.add_transform("D", "S", KernelCall("diag"), at("D"));
    b.add_output("D", "out.h5", "/D", at("D"));
    CHECK(apply_only(b.finish(), "R1-7").log.empty());
}

TEST_CASE("diag(X+Y): R1-6, R1-2, R1-7 give the thesis' plan, diagonals of diagonal tiles") {
    const Program before = workflow::load_workflow(TRA_SOURCE_DIR "/plans/examples/diag.yaml");
    const RewriteResult r = apply_logical_rewrites(before);

    REQUIRE(r.log.size() == 3);
    CHECK(r.log[0].rule == "R1-6");
    CHECK(r.log[1].rule == "R1-2");
    CHECK(r.log[2].rule == "R1-7");
    const Node& s = named(r.program, "S");
    CHECK(s.tuples() == 5);
    CHECK(s.type.bound == Shape{6});  // the join adds diagonals, not [6, 6] tiles
    CHECK(std::holds_alternative<RekeyOp>(named(r.program, "Dg").op));
    CHECK(operand(r.program, "Dg") == "S");
    CHECK(r.program.rewrites ==
          std::vector<std::string>{"R1-6 at F", "R1-2 at Dg", "R1-7 at Dg.S"});
    check_invariants(before, r.program);
}
