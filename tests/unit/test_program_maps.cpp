// ProgramBuilder: inference and checks for rekey, filter, transform, tile/concat and outputs
// (with the messages users see). Inputs, joins and aggregates: test_program.cpp.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/relation.hpp"
#include "kernels/kernel.hpp"
#include "program_fixtures.hpp"
#include "tra/program.hpp"
#include "tra/program_builder.hpp"

using namespace tra;
using kernels::KernelCall;

using namespace tra::testing;

TEST_CASE("rekey: permutation, arity change, and errors", "[program][rekey]") {
    TwoInputs f;  // B frontier [2, 3]
    const Node& t = f.b.node(f.b.add_rekey("T", "B", "(i, j) -> (j, i)", at("T")));
    CHECK(t.type.key_arity == 2);
    CHECK(t.type.bound == Shape{3, 2});
    CHECK(t.frontier == Frontier{3, 2});
    KeySet expected;
    for (const Key& k : f.node("B").keys) expected.insert(Key{k[1], k[0]});
    CHECK(t.keys == expected);

    const Node& w = f.b.node(f.b.add_rekey("W", "B", "(i, j) -> (i, j, i + j)", at("W")));
    CHECK(w.type.key_arity == 3);
    CHECK(w.keys.contains(Key{1, 2, 3}));
    CHECK(w.frontier == Frontier{2, 3, 4});
    CHECK_FALSE(w.is_tensor());

    StepSource src = at("program[2].R");
    src.fields["key"] = SourceLocation{"wf.yaml", 5, 22, "program[2].R.key"};
    // (0, 0) and (0, 1) both map to (0).
    CHECK_THROWS_WITH(f.b.add_rekey("R", "B", "(i, j) -> (i)", src),
                      Catch::StartsWith("wf.yaml:5:22: program[2].R.key: ") &&
                          Catch::Contains("rekey maps keys (0, 0) and (0, 1) to the same key (0)"));
    CHECK_THROWS_WITH(
        f.b.add_rekey("R", "B", "(i, j) -> (i - 1, j)", src),
        Catch::StartsWith("wf.yaml:5:22: program[2].R.key: ") && Catch::Contains("non-negative"));
    CHECK_THROWS_WITH(f.b.add_rekey("R", "B", "k0 == k1", src), Catch::Contains("is a condition"));
    CHECK_THROWS_WITH(f.b.add_rekey("R", "B", "(i, j, k) -> (i)", src),
                      Catch::StartsWith("wf.yaml:5:22: program[2].R.key: "));
    CHECK_THROWS_WITH(f.b.add_rekey("R", "B", "(i, j) -> (i / (j - j), j)", src),
                      Catch::StartsWith("wf.yaml:5:22: program[2].R.key: "));
}

TEST_CASE("filter: diag keeps exactly the diagonal, frontier follows the kept keys",
          "[program][filter][holes]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("A", Shape{12, 12}, Shape{3, 3}, DType::F64, generated(), at("A"));  // [4, 4]
    const Node& d = b.node(b.add_filter("D", "A", "k0 == k1", at("D")));
    CHECK(d.keys == keys({{0, 0}, {1, 1}, {2, 2}, {3, 3}}));
    CHECK(d.type == b.node(0).type);
    CHECK(d.frontier == Frontier{4, 4});
    CHECK_FALSE(d.is_tensor());

    const Node& c = b.node(b.add_filter("C", "A", "(i, j) -> i == 1 && j < 2", at("C")));
    CHECK(c.keys == keys({{1, 0}, {1, 1}}));
    CHECK(c.frontier == Frontier{2, 2});
    CHECK_FALSE(c.keys.is_box(2));

    const Node& n = b.node(b.add_filter("N", "A", "k0 > 10", at("N")));
    CHECK(n.keys.empty());
    CHECK(n.frontier == Frontier{0, 0});

    StepSource src = at("program[0].F");
    src.fields["where"] = SourceLocation{"wf.yaml", 4, 30, "program[0].F.where"};
    CHECK_THROWS_WITH(b.add_filter("F", "A", "(k0, k1)", src),
                      Catch::StartsWith("wf.yaml:4:30: program[0].F.where: ") &&
                          Catch::Contains("computes a key"));
    CHECK_THROWS_WITH(b.add_filter("F", "A", "k2 == 0", src),
                      Catch::StartsWith("wf.yaml:4:30: program[0].F.where: "));
}

TEST_CASE("transform: shape inference, whole rows, argmin", "[program][transform]") {
    TwoInputs f;  // A: frontier [2, 2], tiles [4, 3]
    const Node& t = f.b.node(f.b.add_transform("T", "A", KernelCall("transpose"), at("T")));
    CHECK(t.type.bound == Shape{3, 4});
    CHECK(t.keys == f.node("A").keys);
    CHECK(t.frontier == Frontier{2, 2});
    const Node& r = f.b.node(f.b.add_transform("R", "A", KernelCall("row_sum"), at("R")));
    CHECK(r.type.bound == Shape{4});
    CHECK(r.type.key_arity == 2);

    StepSource src = at("program[0].S");
    src.fields["kernel"] = SourceLocation{"wf.yaml", 6, 40, "program[0].S.kernel"};
    CHECK_THROWS_WITH(f.b.add_transform("S", "A", KernelCall("softmax_rows"), src),
                      Catch::StartsWith("wf.yaml:6:40: program[0].S.kernel: ") &&
                          Catch::Contains("2 tiles across its columns; make the tile 6 wide"));
    f.b.add_input("W", Shape{8, 6}, Shape{4, 6}, DType::F64, generated(), at("W"));
    const Node& s = f.b.node(f.b.add_transform("S", "W", KernelCall("softmax_rows"), src));
    CHECK(s.type.bound == Shape{4, 6});
    CHECK(s.frontier == Frontier{2, 1});

    // argmin needs key arity == tile rank.
    const Node& am = f.b.node(f.b.add_transform("AM", "A", KernelCall("argmin"), at("AM")));
    CHECK(am.type.bound == Shape{2});
    CHECK(am.type.key_arity == 2);
    f.b.add_join("AB", "A", "B", {1}, {0}, KernelCall("matmul"), at("AB"));
    CHECK_THROWS_WITH(f.b.add_transform("X", "AB", KernelCall("argmin"), src),
                      Catch::Contains("as many key positions as tile dimensions"));
    CHECK_THROWS_WITH(f.b.add_transform("X", "A", KernelCall("add"), src),
                      Catch::Contains("but a transform needs a kernel of 1"));
    CHECK_THROWS_WITH(
        f.b.add_transform("X", "A", KernelCall("diag"), src),
        Catch::StartsWith("wf.yaml:6:40: program[0].S.kernel: ") && Catch::Contains("not square"));
    CHECK_THROWS_WITH(f.b.add_transform("X", "A", KernelCall("scale"), src),
                      Catch::Contains("scale needs a factor"));
}

TEST_CASE("transform: softmax_rows on a relation whose key has one position is rejected",
          "[program][transform][errors]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("V", Shape{8}, Shape{4}, DType::F64, generated(), at("V"));
    b.add_aggregate("S", "V", {}, KernelCall("add"), at("S"));  // arity 0, tile [4]
    b.add_input("A", Shape{8, 6}, Shape{4, 6}, DType::F64, generated(), at("A"));
    b.add_aggregate("R", "A", {0}, KernelCall("add"), at("R"));  // arity 1, tile [4, 6]
    CHECK_THROWS_WITH(b.add_transform("X", "R", KernelCall("softmax_rows"), at("X")),
                      Catch::Contains("needs a matrix relation"));
}

TEST_CASE("tile and concat: keys, bounds, round trip", "[program][tile][concat]") {
    TwoInputs f;  // A: frontier [2, 2], tiles [4, 3]
    const Node& h = f.b.node(f.b.add_tile("H", "A", 0, 2, at("H")));
    CHECK(h.type.key_arity == 3);
    CHECK(h.type.bound == Shape{2, 3});
    CHECK(h.frontier == Frontier{2, 2, 2});
    CHECK(h.tuples() == 8);
    CHECK(h.keys.contains(Key{1, 0, 1}));
    const Node& h1 = f.b.node(f.b.add_tile("H1", "A", 1, 1, at("H1")));
    CHECK(h1.frontier == Frontier{2, 2, 3});
    CHECK(h1.type.bound == Shape{4, 1});

    const Node& i = f.b.node(f.b.add_concat("I", "H", 2, 0, at("I")));
    CHECK(i.type == f.node("A").type);
    CHECK(i.keys == f.node("A").keys);
    CHECK(i.frontier == Frontier{2, 2});
    // Concatenating along another array dimension widens that one instead.
    const Node& w = f.b.node(f.b.add_concat("W", "H", 2, 1, at("W")));
    CHECK(w.type.bound == Shape{2, 6});
    // Concatenating on key position 0 groups on (k1, k2).
    const Node& g = f.b.node(f.b.add_concat("G", "H", 0, 0, at("G")));
    CHECK(g.type.bound == Shape{4, 3});
    CHECK(g.keys == keys({{0, 0}, {0, 1}, {1, 0}, {1, 1}}));
}

TEST_CASE("tile and concat: errors", "[program][tile][concat][errors]") {
    TwoInputs f;
    StepSource src = at("program[0].H");
    src.fields["size"] = SourceLocation{"wf.yaml", 8, 33, "program[0].H.size"};
    src.fields["dim"] = SourceLocation{"wf.yaml", 8, 24, "program[0].H.dim"};
    CHECK_THROWS_WITH(
        f.b.add_tile("X", "A", 0, 3, src),
        Catch::StartsWith("wf.yaml:8:33: program[0].H.size: ") &&
            Catch::Contains("size 3 does not divide the tile extent 4; sizes that do: 1, 2, 4"));
    CHECK_THROWS_WITH(f.b.add_tile("X", "A", 0, 0, src), Catch::Contains("does not divide"));
    CHECK_THROWS_WITH(f.b.add_tile("X", "A", 2, 1, src),
                      Catch::StartsWith("wf.yaml:8:24: program[0].H.dim: ") &&
                          Catch::Contains("dimension 2 is out of range"));

    f.b.add_tile("H", "A", 0, 1, at("H"));  // pieces 0..3 on key position 2
    CHECK_THROWS_WITH(f.b.add_concat("X", "H", 3, 0, src),
                      Catch::Contains("key_dim 3 is out of range"));
    CHECK_THROWS_WITH(f.b.add_concat("X", "H", 2, 2, src),
                      Catch::Contains("array_dim 2 is out of range"));
    // Incomplete groups: group (1, *) holds piece 0 only.
    f.b.add_filter("P", "H", "k2 == 0 || k0 == 0", at("P"));
    CHECK_THROWS_WITH(f.b.add_concat("X", "P", 2, 0, src),
                      Catch::Contains("concat needs complete groups"));
    // Not continuous: every group holds 0, 2, 3.
    f.b.add_filter("Q", "H", "k2 != 1", at("Q"));
    CHECK_THROWS_WITH(f.b.add_concat("X", "Q", 2, 0, src),
                      Catch::Contains("concat needs complete groups"));
    // Not starting at 0: every group holds 1, 2, 3.
    f.b.add_filter("R", "H", "k2 >= 1", at("R"));
    CHECK_THROWS_WITH(f.b.add_concat("X", "R", 2, 0, src),
                      Catch::Contains("concat needs complete groups"));
    // A group of pieces 0..1 everywhere is fine, even though it is not the whole tile.
    f.b.add_filter("S", "H", "k2 < 2", at("S"));
    const Node& ok = f.b.node(f.b.add_concat("OK", "S", 2, 0, src));
    CHECK(ok.type.bound == Shape{2, 3});
}

TEST_CASE("outputs: holes rejected, duplicates rejected, needed marking", "[program][outputs]") {
    TwoInputs f;
    f.b.add_join("AB", "A", "B", {1}, {0}, KernelCall("matmul"), at("AB"));
    f.b.add_aggregate("C", "AB", {0, 2}, KernelCall("add"), at("C"));
    f.b.add_rekey("E", "C", "(i, j) -> (j, i)", at("E"));                      // unused
    f.b.add_input("U", Shape{4}, Shape{2}, DType::F64, generated(), at("U"));  // unused input
    f.b.add_transform("V", "U", KernelCall("relu"), at("V"));                  // unused
    f.b.add_filter("D", "C", "k0 == k1", at("D"));

    StepSource out = at("outputs.D");
    CHECK_THROWS_WITH(f.b.add_output("D", "o.h5", "/D", out),
                      Catch::StartsWith("t.yaml:1:1: outputs.D: ") &&
                          Catch::Contains("D has holes: 2 of 4 tuples below its frontier [2, 2]"));
    f.b.add_output("C", "o.h5", "/C", at("outputs.C"));
    StepSource dup = at("outputs.C2");
    dup.fields["dataset"] = SourceLocation{"wf.yaml", 20, 12, "outputs.C2.dataset"};
    CHECK_THROWS_WITH(
        f.b.add_output("E", "o.h5", "/C", dup),
        Catch::StartsWith("wf.yaml:20:12: outputs.C2.dataset: two outputs write o.h5:/C"));
    CHECK_THROWS_WITH(f.b.add_output("Nope", "o.h5", "/N", at("outputs.Nope")),
                      Catch::Contains("unknown relation 'Nope'"));

    Program p = f.b.finish();
    REQUIRE(p.outputs.size() == 1);
    auto needed = [&](const std::string& n) { return p.node(*p.find(n)).needed; };
    CHECK(needed("A"));
    CHECK(needed("B"));
    CHECK(needed("AB"));
    CHECK(needed("C"));
    CHECK_FALSE(needed("E"));
    CHECK_FALSE(needed("U"));
    CHECK_FALSE(needed("V"));
    CHECK_FALSE(needed("D"));
    CHECK(p.input_nodes() == std::vector<NodeId>{0, 1, 5});
}

TEST_CASE("outputs: an input can be an output, an empty relation cannot", "[program][outputs]") {
    TwoInputs f;
    f.b.add_filter("Z", "A", "k0 > 5", at("Z"));
    CHECK_THROWS_WITH(f.b.add_output("Z", "o.h5", "/Z", at("outputs.Z")),
                      Catch::Contains("has holes"));
    f.b.add_output("A", "o.h5", "/A", at("outputs.A"));
    Program p = f.b.finish();
    CHECK(p.node(0).needed);
    CHECK_FALSE(p.node(1).needed);
}

TEST_CASE("integrity: names are unique and unknown names are errors", "[program][integrity]") {
    TwoInputs f;
    StepSource src = at("program[3].A");
    CHECK_THROWS_WITH(f.b.add_transform("A", "B", KernelCall("relu"), src),
                      Catch::StartsWith("t.yaml:1:1: program[3].A: duplicate name 'A'"));
    CHECK_THROWS_WITH(f.b.add_input("B", Shape{4}, Shape{4}, DType::F64, generated(), src),
                      Catch::Contains("duplicate name 'B'"));
    CHECK_THROWS_WITH(f.b.add_rekey("R", "Q", "(k0, k1)", src),
                      Catch::Contains("unknown relation 'Q'"));
    CHECK_THROWS_WITH(f.b.add_filter("R", "Q", "k0 == 0", src),
                      Catch::Contains("unknown relation 'Q'"));
    CHECK_THROWS_WITH(f.b.add_tile("R", "Q", 0, 1, src), Catch::Contains("unknown relation 'Q'"));
    CHECK_THROWS_WITH(f.b.add_concat("R", "Q", 0, 0, src), Catch::Contains("unknown relation 'Q'"));
    try {
        f.b.add_transform("A", "B", KernelCall("relu"), src);
    } catch (const Error& e) {
        CHECK(e.exit_code() == 2);
        CHECK(e.where().field == "program[3].A");
    }
    Program p = f.b.finish();
    CHECK(p.nodes.size() == 2);
}

TEST_CASE("StepSource::at: the field's own place, else the step's with the field's name",
          "[program][integrity]") {
    StepSource s = at("program[1].C");
    s.fields["by"] = SourceLocation{"wf.yaml", 7, 25, "program[1].C.by"};
    CHECK(s.at("by").str() == "wf.yaml:7:25: program[1].C.by");
    CHECK(s.at("kernel").str() == "t.yaml:1:1: program[1].C.kernel");
}

TEST_CASE("operator_name and operator_args", "[program]") {
    TwoInputs f;
    f.b.add_join("AB", "A", "B", {1}, {0}, KernelCall("matmul"), at("AB"));
    f.b.add_aggregate("C", "AB", {0, 2}, KernelCall("add"), at("C"));
    f.b.add_tile("H", "C", 1, 1, at("H"));
    f.b.add_concat("I", "H", 2, 1, at("I"));
    Program p = f.b.finish();
    CHECK(operator_name(p.node(2).op) == "join");
    CHECK(operator_args(p.node(2).op) == "on [1]=[0] kernel matmul");
    CHECK(operator_name(p.node(3).op) == "aggregate");
    CHECK(operator_args(p.node(3).op) == "by [0, 2] kernel add");
    CHECK(operator_args(p.node(4).op) == "dim 1 size 1");
    CHECK(operator_args(p.node(5).op) == "key_dim 2 array_dim 1");
    CHECK(operator_name(p.node(0).op) == "input");
}
