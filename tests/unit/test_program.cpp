// ProgramBuilder: type, key-set and frontier inference for inputs, joins and aggregates, and the
// checks each makes (with the messages users see). Maps, filters, tiles and outputs:
// test_program_maps.cpp.
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

TEST_CASE("input: frontier is shape / tile, keys are the box, type R^(k,r,b)", "[program][input]") {
    TwoInputs f;
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
    TwoInputs f;
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
    f.b.add_input("C", Shape{6, 6}, Shape{2, 3}, DType::F64, generated(),
                  at("C"));  // frontier [3, 2]
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
    const Node& st =
        b.node(b.add_join("ST", "S", "T", {0, 1}, {1, 0}, KernelCall("add"), at("ST")));
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
    b.add_filter("L", "A", "k0 == k1", at("L"));            // (0,0) (1,1) (2,2)
    b.add_filter("R", "A", "k0 != k1 && k0 < 2", at("R"));  // (0,1) (0,2) (1,0) (1,2)
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
    TwoInputs f;
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
    CHECK_THROWS_WITH(
        f.b.add_join("J", "A", "B", {2}, {0}, KernelCall("matmul"), src),
        Catch::StartsWith("wf.yaml:9:30: program[0].J.on: ") &&
            Catch::Contains("key position 2 is out of range: A has keys of 2 positions"));
    CHECK_THROWS_WITH(f.b.add_join("J", "A", "B", {1}, {5}, KernelCall("matmul"), src),
                      Catch::Contains("key position 5 is out of range: B has keys of 2 positions"));
    CHECK_THROWS_WITH(f.b.add_join("J", "A", "A", {0, 0}, {0, 1}, KernelCall("add"), src),
                      Catch::Contains("key position 0 is listed twice"));
    CHECK_THROWS_WITH(
        f.b.add_join("J", "A", "A", {0}, {0, 1}, KernelCall("add"), src),
        Catch::Contains("join positions differ in count: 1 on the left, 2 on the right"));
    CHECK_THROWS_WITH(f.b.add_join("J", "A", "A", {0}, {0}, KernelCall("relu"), src),
                      Catch::Contains("takes 1 operand(s), but a join needs a kernel of 2"));
    CHECK_THROWS_WITH(
        f.b.add_join("J", "A", "Nope", {0}, {0}, KernelCall("add"), src),
        Catch::StartsWith("wf.yaml:9:13: program[0].J.join: unknown relation 'Nope'"));
    // Nothing was added by the failed attempts.
    CHECK_FALSE(f.b.lookup_optional("J"));
}

TEST_CASE("try_add_join returns the problem add_join would throw, and adds nothing",
          "[program][join][errors]") {
    TwoInputs f;
    StepSource src = at("program[0].J");
    src.fields["kernel"] = SourceLocation{"wf.yaml", 9, 50, "program[0].J.kernel"};
    // A's tiles [4, 3] times A's tiles [4, 3]: inner extents 3 and 4.
    const Checked<NodeId> bad =
        f.b.try_add_join("J", "A", "A", {1}, {0}, KernelCall("matmul"), src);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.problem().where().str() == "wf.yaml:9:50: program[0].J.kernel");
    CHECK_THAT(bad.problem().message(), Catch::Contains("inner extents differ"));
    CHECK_FALSE(f.b.lookup_optional("J"));
    const Checked<NodeId> good =
        f.b.try_add_join("J", "A", "B", {1}, {0}, KernelCall("matmul"), src);
    REQUIRE(good.ok());
    CHECK(f.b.lookup_optional("J") == *good);
}

TEST_CASE("aggregate: group key follows the order of by", "[program][aggregate]") {
    TwoInputs f;
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
    TwoInputs f;
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
