// ProgramBuilder: type, key-set and frontier inference for every TRA operator, and the checks
// each operator makes (with the messages users see).
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/relation.hpp"
#include "kernels/kernel.hpp"
#include "tra/program.hpp"
#include "tra/program_builder.hpp"

using namespace tra;
using kernels::KernelCall;

namespace {

StepSource at(const std::string& step) {
    StepSource s;
    s.step = SourceLocation{"t.yaml", 3, 5, step};
    return s;
}

InputSource generated() {
    InputSource s;
    s.generate = storage::GeneratorSpec{};
    return s;
}

KeySet keys(std::initializer_list<Key> ks) {
    KeySet s;
    for (const Key& k : ks) s.insert(k);
    return s;
}

std::string describe(const KeySet& s) {
    std::string out;
    for (const Key& k : s) out += k.str() + " ";
    return out;
}

// A: [8, 6] in tiles [4, 3] -> frontier [2, 2]; B: [6, 6] in tiles [3, 2] -> frontier [2, 3].
struct Fixture {
    ProgramBuilder b{"p", DType::F64};
    Fixture() {
        b.add_input("A", Shape{8, 6}, Shape{4, 3}, DType::F64, generated(), at("inputs.A"));
        b.add_input("B", Shape{6, 6}, Shape{3, 2}, DType::F64, generated(), at("inputs.B"));
    }
    const Node& node(const std::string& name) { return b.node(*b.lookup_optional(name)); }
};

}  // namespace

TEST_CASE("input: frontier is shape / tile, keys are the box, type R^(k,r,b)", "[program][input]") {
    Fixture f;
    const Node& a = f.node("A");
    CHECK(a.type.key_arity == 2);
    CHECK(a.type.bound == Shape{4, 3});
    CHECK(a.type.dtype == DType::F64);
    CHECK(a.frontier == Frontier{2, 2});
    CHECK(a.keys == keys({{0, 0}, {0, 1}, {1, 0}, {1, 1}}));
    CHECK(a.is_tensor());
    CHECK(a.bytes() == 4u * 12u * 8u);
    const Node& b = f.node("B");
    CHECK(b.frontier == Frontier{2, 3});
    CHECK(b.tuples() == 6);
    CHECK(std::holds_alternative<InputOp>(b.op));
}

TEST_CASE("input: f32 input and a rank-3 input", "[program][input]") {
    ProgramBuilder b("p", DType::F64);
    auto id = b.add_input("X", Shape{4, 6, 10}, Shape{2, 3, 5}, DType::F32, generated(), at("X"));
    const Node& x = b.node(id);
    CHECK(x.type.dtype == DType::F32);
    CHECK(x.frontier == Frontier{2, 2, 2});
    CHECK(x.tuples() == 8);
    CHECK(x.type.tile_bytes() == 30u * 4u);
}

TEST_CASE("input: a tile that does not divide the shape names the dimension and suggests divisors",
          "[program][input][errors]") {
    ProgramBuilder b("p", DType::F64);
    StepSource src = at("inputs.A");
    src.fields["tile"] = SourceLocation{"wf.yaml", 3, 34, "inputs.A.tile"};
    try {
        b.add_input("A", Shape{1000, 1000}, Shape{100, 300}, DType::F64, generated(), src);
        FAIL("no error");
    } catch (const Error& e) {
        CHECK(std::string(e.what()) ==
              "wf.yaml:3:34: inputs.A.tile: dimension 1: shape 1000 is not divisible by tile 300; "
              "tile sizes that divide it: 100, 125, 200, 250");
        CHECK(e.exit_code() == 2);
    }
    CHECK_THROWS_WITH(b.add_input("B", Shape{7, 8}, Shape{2, 8}, DType::F64, generated(), src),
                      Catch::Contains("dimension 0: shape 7 is not divisible by tile 2") &&
                          Catch::Contains("1, 7"));
    CHECK_THROWS_WITH(b.add_input("C", Shape{8, 8}, Shape{8}, DType::F64, generated(), src),
                      Catch::Contains("tile has 1 dimensions but shape has 2"));
    CHECK_THROWS_WITH(b.add_input("D", Shape{8, 0}, Shape{8, 1}, DType::F64, generated(), src),
                      Catch::Contains("shape must be positive"));
}

TEST_CASE("join: output key = left ++ right minus right join positions", "[program][join]") {
    Fixture f;
    f.b.add_join("AB", "A", "B", {1}, {0}, KernelCall("matmul"), at("AB"));
    const Node& ab = f.node("AB");
    CHECK(ab.type.key_arity == 3);
    CHECK(ab.type.bound == Shape{4, 2});
    CHECK(ab.frontier == Frontier{2, 2, 3});
    KeySet expected;
    for (std::int64_t i = 0; i < 2; ++i)
        for (std::int64_t k = 0; k < 2; ++k)
            for (std::int64_t j = 0; j < 3; ++j) expected.insert(Key{i, k, j});
    CHECK(ab.keys == expected);
    CHECK(ab.inputs == std::vector<NodeId>{0, 1});

    // Joining on the right's last position keeps the right's first one.
    f.b.add_input("C", Shape{6, 6}, Shape{2, 3}, DType::F64, generated(), at("C"));  // frontier [3, 2]
    f.b.add_join("AC", "A", "C", {1}, {1}, KernelCall("matmul_nt"), at("AC"));
    const Node& ac = f.node("AC");
    CHECK(ac.type.bound == Shape{4, 2});
    CHECK(ac.frontier == Frontier{2, 2, 3});
    CHECK(ac.keys.contains(Key{1, 1, 2}));
    CHECK(ac.tuples() == 12);
}

TEST_CASE("join: two join positions in crossed order, and a cross product", "[program][join]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("S", Shape{8, 12}, Shape{4, 4}, DType::F64, generated(), at("S"));  // [2, 3]
    b.add_input("T", Shape{12, 8}, Shape{4, 4}, DType::F64, generated(), at("T"));  // [3, 2]
    const Node& st = b.node(b.add_join("ST", "S", "T", {0, 1}, {1, 0}, KernelCall("add"), at("ST")));
    // S(i, j) meets T(j, i): every key of S has a partner, output keys are S's keys.
    CHECK(st.type.key_arity == 2);
    CHECK(st.keys == b.node(0).keys);
    CHECK(st.frontier == Frontier{2, 3});

    const Node& x = b.node(b.add_join("X", "S", "T", {}, {}, KernelCall("add"), at("X")));
    CHECK(x.type.key_arity == 4);
    CHECK(x.tuples() == 36);
    CHECK(x.frontier == Frontier{2, 3, 3, 2});
}

TEST_CASE("join: exact key set when both sides have holes", "[program][join][holes]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("A", Shape{9, 9}, Shape{3, 3}, DType::F64, generated(), at("A"));  // [3, 3]
    b.add_filter("L", "A", "k0 == k1", at("L"));             // (0,0) (1,1) (2,2)
    b.add_filter("R", "A", "k0 != k1 && k0 < 2", at("R"));   // (0,1) (0,2) (1,0) (1,2)
    const Node& j = b.node(b.add_join("J", "L", "R", {1}, {0}, KernelCall("matmul"), at("J")));
    CHECK(j.keys == keys({{0, 0, 1}, {0, 0, 2}, {1, 1, 0}, {1, 1, 2}}));
    INFO(describe(j.keys));
    CHECK(j.frontier == Frontier{2, 2, 3});
    CHECK_FALSE(j.is_tensor());
    // No partner at all: an empty relation, frontier all zeros.
    b.add_filter("Z", "A", "k1 == 2", at("Z"));  // R.k0 < 2 never meets Z.k1 == 2
    const Node& e = b.node(b.add_join("E", "R", "Z", {0}, {1}, KernelCall("add"), at("E")));
    CHECK(e.keys.empty());
    CHECK(e.frontier == Frontier{0, 0, 0});
}

TEST_CASE("join: dtype, kernel shape and position errors", "[program][join][errors]") {
    Fixture f;
    f.b.add_input("A32", Shape{8, 6}, Shape{4, 3}, DType::F32, generated(), at("A32"));
    StepSource src = at("program[0].J");
    src.fields["join"] = SourceLocation{"wf.yaml", 9, 13, "program[0].J.join"};
    src.fields["on"] = SourceLocation{"wf.yaml", 9, 30, "program[0].J.on"};
    src.fields["kernel"] = SourceLocation{"wf.yaml", 9, 50, "program[0].J.kernel"};

    CHECK_THROWS_WITH(f.b.add_join("J", "A", "A32", {1}, {0}, KernelCall("add"), src),
                      Catch::StartsWith("wf.yaml:9:13: program[0].J.join: ") &&
                          Catch::Contains("type mismatch: A is f64 but A32 is f32"));
    // A's tiles [4, 3] times A's tiles [4, 3]: inner extents 3 and 4.
    CHECK_THROWS_WITH(f.b.add_join("J", "A", "A", {1}, {0}, KernelCall("matmul"), src),
                      Catch::StartsWith("wf.yaml:9:50: program[0].J.kernel: ") &&
                          Catch::Contains("inner extents differ"));
    CHECK_THROWS_WITH(f.b.add_join("J", "A", "B", {1}, {0}, KernelCall("add"), src),
                      Catch::StartsWith("wf.yaml:9:50: program[0].J.kernel: "));
    CHECK_THROWS_WITH(f.b.add_join("J", "A", "B", {2}, {0}, KernelCall("matmul"), src),
                      Catch::StartsWith("wf.yaml:9:30: program[0].J.on: ") &&
                          Catch::Contains("key position 2 is out of range: A has keys of 2 positions"));
    CHECK_THROWS_WITH(f.b.add_join("J", "A", "B", {1}, {5}, KernelCall("matmul"), src),
                      Catch::Contains("key position 5 is out of range: B has keys of 2 positions"));
    CHECK_THROWS_WITH(f.b.add_join("J", "A", "A", {0, 0}, {0, 1}, KernelCall("add"), src),
                      Catch::Contains("key position 0 is listed twice"));
    CHECK_THROWS_WITH(f.b.add_join("J", "A", "A", {0}, {0, 1}, KernelCall("add"), src),
                      Catch::Contains("join positions differ in count: 1 on the left, 2 on the right"));
    CHECK_THROWS_WITH(f.b.add_join("J", "A", "A", {0}, {0}, KernelCall("relu"), src),
                      Catch::Contains("takes 1 operand(s), but a join needs a kernel of 2"));
    CHECK_THROWS_WITH(f.b.add_join("J", "A", "Nope", {0}, {0}, KernelCall("add"), src),
                      Catch::StartsWith("wf.yaml:9:13: program[0].J.join: unknown relation 'Nope'"));
    // Nothing was added by the failed attempts.
    CHECK_FALSE(f.b.lookup_optional("J"));
}

TEST_CASE("aggregate: group key follows the order of by", "[program][aggregate]") {
    Fixture f;
    f.b.add_join("AB", "A", "B", {1}, {0}, KernelCall("matmul"), at("AB"));  // (i, k, j) [2, 2, 3]
    const Node& c = f.node("AB");
    (void)c;
    const Node& ji = f.b.node(f.b.add_aggregate("JI", "AB", {2, 0}, KernelCall("add"), at("JI")));
    CHECK(ji.type.key_arity == 2);
    CHECK(ji.type.bound == Shape{4, 2});
    CHECK(ji.frontier == Frontier{3, 2});
    KeySet expected;
    for (std::int64_t j = 0; j < 3; ++j)
        for (std::int64_t i = 0; i < 2; ++i) expected.insert(Key{j, i});
    CHECK(ji.keys == expected);
    const Node& ij = f.b.node(f.b.add_aggregate("IJ", "AB", {0, 2}, KernelCall("add"), at("IJ")));
    CHECK(ij.frontier == Frontier{2, 3});
    const Node& all = f.b.node(f.b.add_aggregate("S", "AB", {}, KernelCall("max"), at("S")));
    CHECK(all.type.key_arity == 0);
    CHECK(all.keys == keys({Key{}}));
    CHECK(all.is_tensor() == false);  // key arity 0 but tile rank 2
    CHECK(all.frontier == Frontier{});
}

TEST_CASE("aggregate: holes in the input shrink the groups", "[program][aggregate][holes]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("A", Shape{9, 9}, Shape{3, 3}, DType::F64, generated(), at("A"));
    b.add_filter("U", "A", "k0 < k1", at("U"));  // (0,1) (0,2) (1,2)
    const Node& g = b.node(b.add_aggregate("G", "U", {1}, KernelCall("add"), at("G")));
    CHECK(g.keys == keys({{1}, {2}}));
    CHECK(g.frontier == Frontier{3});
    CHECK_FALSE(g.keys.is_box(1));
}

TEST_CASE("aggregate: non-aggregating kernels and bad positions are rejected",
          "[program][aggregate][errors]") {
    Fixture f;
    StepSource src = at("program[1].C");
    src.fields["by"] = SourceLocation{"wf.yaml", 7, 25, "program[1].C.by"};
    src.fields["kernel"] = SourceLocation{"wf.yaml", 7, 40, "program[1].C.kernel"};
    f.b.add_join("AB", "A", "B", {1}, {0}, KernelCall("matmul"), at("AB"));
    CHECK_THROWS_WITH(f.b.add_aggregate("C", "AB", {0, 2}, KernelCall("sub"), src),
                      Catch::StartsWith("wf.yaml:7:40: program[1].C.kernel: ") &&
                          Catch::Contains("kernel 'sub' cannot aggregate"));
    CHECK_THROWS_WITH(f.b.add_aggregate("C", "AB", {0, 2}, KernelCall("div"), src),
                      Catch::Contains("cannot aggregate"));
    CHECK_THROWS_WITH(f.b.add_aggregate("C", "AB", {0, 3}, KernelCall("add"), src),
                      Catch::Contains("wf.yaml:7:25: program[1].C.by: key position 3 is out of "
                                      "range: AB has keys of 3 positions"));
    CHECK_THROWS_WITH(f.b.add_aggregate("C", "AB", {2, 2}, KernelCall("add"), src),
                      Catch::Contains("key position 2 is listed twice"));
    CHECK_THROWS_WITH(f.b.add_aggregate("C", "AB", {0}, KernelCall("relu"), src),
                      Catch::Contains("but an aggregation needs a kernel of 2"));
    CHECK_THROWS_WITH(f.b.add_aggregate("C", "Missing", {0}, KernelCall("add"), src),
                      Catch::Contains("unknown relation 'Missing'"));
}

TEST_CASE("rekey: permutation, arity change, and errors", "[program][rekey]") {
    Fixture f;  // B frontier [2, 3]
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
    CHECK_THROWS_WITH(f.b.add_rekey("R", "B", "(i, j) -> (i - 1, j)", src),
                      Catch::StartsWith("wf.yaml:5:22: program[2].R.key: ") &&
                          Catch::Contains("non-negative"));
    CHECK_THROWS_WITH(f.b.add_rekey("R", "B", "k0 == k1", src),
                      Catch::Contains("is a condition"));
    CHECK_THROWS_WITH(f.b.add_rekey("R", "B", "(i, j, k) -> (i)", src),
                      Catch::StartsWith("wf.yaml:5:22: program[2].R.key: "));
    CHECK_THROWS_WITH(f.b.add_rekey("R", "B", "(i, j) -> (i / (j - j), j)", src),
                      Catch::StartsWith("wf.yaml:5:22: program[2].R.key: "));
}

TEST_CASE("filter: diag keeps exactly the diagonal; frontier follows the kept keys",
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
    Fixture f;  // A: frontier [2, 2], tiles [4, 3]
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
    CHECK_THROWS_WITH(f.b.add_transform("X", "A", KernelCall("diag"), src),
                      Catch::StartsWith("wf.yaml:6:40: program[0].S.kernel: ") &&
                          Catch::Contains("not square"));
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
    Fixture f;  // A: frontier [2, 2], tiles [4, 3]
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
    Fixture f;
    StepSource src = at("program[0].H");
    src.fields["size"] = SourceLocation{"wf.yaml", 8, 33, "program[0].H.size"};
    src.fields["dim"] = SourceLocation{"wf.yaml", 8, 24, "program[0].H.dim"};
    CHECK_THROWS_WITH(f.b.add_tile("X", "A", 0, 3, src),
                      Catch::StartsWith("wf.yaml:8:33: program[0].H.size: ") &&
                          Catch::Contains("size 3 does not divide the tile extent 4; sizes that do: 1, 2, 4"));
    CHECK_THROWS_WITH(f.b.add_tile("X", "A", 0, 0, src), Catch::Contains("does not divide"));
    CHECK_THROWS_WITH(f.b.add_tile("X", "A", 2, 1, src),
                      Catch::StartsWith("wf.yaml:8:24: program[0].H.dim: ") &&
                          Catch::Contains("dimension 2 is out of range"));

    f.b.add_tile("H", "A", 0, 1, at("H"));  // pieces 0..3 on key position 2
    CHECK_THROWS_WITH(f.b.add_concat("X", "H", 3, 0, src), Catch::Contains("key_dim 3 is out of range"));
    CHECK_THROWS_WITH(f.b.add_concat("X", "H", 2, 2, src), Catch::Contains("array_dim 2 is out of range"));
    // Incomplete groups: group (1, *) holds piece 0 only.
    f.b.add_filter("P", "H", "k2 == 0 || k0 == 0", at("P"));
    CHECK_THROWS_WITH(f.b.add_concat("X", "P", 2, 0, src), Catch::Contains("concat needs complete groups"));
    // Not continuous: every group holds 0, 2, 3.
    f.b.add_filter("Q", "H", "k2 != 1", at("Q"));
    CHECK_THROWS_WITH(f.b.add_concat("X", "Q", 2, 0, src), Catch::Contains("concat needs complete groups"));
    // Not starting at 0: every group holds 1, 2, 3.
    f.b.add_filter("R", "H", "k2 >= 1", at("R"));
    CHECK_THROWS_WITH(f.b.add_concat("X", "R", 2, 0, src), Catch::Contains("concat needs complete groups"));
    // A group of pieces 0..1 everywhere is fine, even though it is not the whole tile.
    f.b.add_filter("S", "H", "k2 < 2", at("S"));
    const Node& ok = f.b.node(f.b.add_concat("OK", "S", 2, 0, src));
    CHECK(ok.type.bound == Shape{2, 3});
}

TEST_CASE("outputs: holes rejected, duplicates rejected, needed marking", "[program][outputs]") {
    Fixture f;
    f.b.add_join("AB", "A", "B", {1}, {0}, KernelCall("matmul"), at("AB"));
    f.b.add_aggregate("C", "AB", {0, 2}, KernelCall("add"), at("C"));
    f.b.add_rekey("E", "C", "(i, j) -> (j, i)", at("E"));           // unused
    f.b.add_input("U", Shape{4}, Shape{2}, DType::F64, generated(), at("U"));  // unused input
    f.b.add_transform("V", "U", KernelCall("relu"), at("V"));       // unused
    f.b.add_filter("D", "C", "k0 == k1", at("D"));

    StepSource out = at("outputs.D");
    CHECK_THROWS_WITH(f.b.add_output("D", "o.h5", "/D", out),
                      Catch::StartsWith("t.yaml:3:5: outputs.D: ") &&
                          Catch::Contains("D has holes: 2 of 4 tuples below its frontier [2, 2]"));
    f.b.add_output("C", "o.h5", "/C", at("outputs.C"));
    StepSource dup = at("outputs.C2");
    dup.fields["dataset"] = SourceLocation{"wf.yaml", 20, 12, "outputs.C2.dataset"};
    CHECK_THROWS_WITH(f.b.add_output("E", "o.h5", "/C", dup),
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

TEST_CASE("outputs: an input can be an output; an empty relation cannot", "[program][outputs]") {
    Fixture f;
    f.b.add_filter("Z", "A", "k0 > 5", at("Z"));
    CHECK_THROWS_WITH(f.b.add_output("Z", "o.h5", "/Z", at("outputs.Z")),
                      Catch::Contains("has holes"));
    f.b.add_output("A", "o.h5", "/A", at("outputs.A"));
    Program p = f.b.finish();
    CHECK(p.node(0).needed);
    CHECK_FALSE(p.node(1).needed);
}

TEST_CASE("integrity: names are unique and unknown names are errors", "[program][integrity]") {
    Fixture f;
    StepSource src = at("program[3].A");
    CHECK_THROWS_WITH(f.b.add_transform("A", "B", KernelCall("relu"), src),
                      Catch::StartsWith("t.yaml:3:5: program[3].A: duplicate name 'A'"));
    CHECK_THROWS_WITH(f.b.add_input("B", Shape{4}, Shape{4}, DType::F64, generated(), src),
                      Catch::Contains("duplicate name 'B'"));
    CHECK_THROWS_WITH(f.b.add_rekey("R", "Q", "(k0, k1)", src), Catch::Contains("unknown relation 'Q'"));
    CHECK_THROWS_WITH(f.b.add_filter("R", "Q", "k0 == 0", src), Catch::Contains("unknown relation 'Q'"));
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
    CHECK(s.at("kernel").str() == "t.yaml:3:5: program[1].C.kernel");
}

TEST_CASE("operator_name and operator_args", "[program]") {
    Fixture f;
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
