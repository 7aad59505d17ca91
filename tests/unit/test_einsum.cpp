// Einsum: spec parsing, the shape of the lowering (which TRA nodes it creates), an element-wise
// product's numbers, and errors located at the step's fields. test_einsum_numerics.cpp checks
// the evaluator's numbers of lowered einsums against naive loops.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "einsum_fixtures.hpp"
#include "tra/einsum_lowering.hpp"
#include "tra/program_builder.hpp"

using namespace tra;

namespace {

StepSource at(const std::string& step) {
    StepSource s;
    s.step = SourceLocation{"e.yaml", 4, 3, step};
    return s;
}

using tra::testing::node_ops;
using tra::testing::small_integers_input;

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("EinsumSpec::parse: explicit and implicit outputs", "[einsum][parse]") {
    auto s = EinsumSpec::parse("ik,kj->ij");
    CHECK(s.operands == Strings{"ik", "kj"});
    CHECK(s.output == "ij");
    CHECK(s.str() == "ik,kj->ij");
    CHECK(EinsumSpec::parse(" ik , kj -> ji ").str() == "ik,kj->ji");
    // numpy's implicit output: labels seen once, alphabetical.
    CHECK(EinsumSpec::parse("ik,kj").output == "ij");
    CHECK(EinsumSpec::parse("ba").output == "ab");
    CHECK(EinsumSpec::parse("i,i").output == "");
    CHECK(EinsumSpec::parse("zy,yx,xw").output == "wz");
    CHECK(EinsumSpec::parse("i,i->").output == "");
    CHECK(EinsumSpec::parse("ij->").operands == Strings{"ij"});
}

TEST_CASE("EinsumSpec::parse: errors", "[einsum][parse][errors]") {
    // A label may repeat within an operand (a diagonal, test_einsum_diagonal.cpp).
    CHECK(EinsumSpec::parse("ii->i").operands == Strings{"ii"});
    CHECK(EinsumSpec::parse("ij,jkk->ik").str() == "ij,jkk->ik");
    CHECK_THROWS_WITH(EinsumSpec::parse("ij,jk->iz"),
                      Catch::Contains("output label 'z' appears in no operand"));
    CHECK_THROWS_WITH(EinsumSpec::parse("ij->ii"), Catch::Contains("repeated in the output"));
    CHECK_THROWS_WITH(EinsumSpec::parse("iJ->i"),
                      Catch::Contains("'J' in operand 1 is not a label"));
    CHECK_THROWS_WITH(EinsumSpec::parse("i1,1j->ij"), Catch::Contains("is not a label"));
    CHECK_THROWS_WITH(EinsumSpec::parse("ij->i.j"),
                      Catch::Contains("'.' in the output is not a label"));
    CHECK_THROWS_WITH(EinsumSpec::parse("ij->i->j"), Catch::Contains("is not a label"));
    CHECK_THROWS_WITH(EinsumSpec::parse("->i"), Catch::Contains("no operands"));
    try {
        EinsumSpec::parse("ij->ii");
        FAIL("no error");
    } catch (const Error& e) {
        CHECK(e.exit_code() == 2);
        CHECK(e.where().empty());
    }
}

TEST_CASE("einsum lowering: matmul is a join then an aggregate", "[einsum][lowering]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("A", Shape{6, 4}, Shape{3, 2}, DType::F64, small_integers_input(1), at("A"));
    b.add_input("B", Shape{4, 10}, Shape{2, 5}, DType::F64, small_integers_input(2), at("B"));
    b.add_einsum("C", EinsumStep{"ik,kj->ij", {"A", "B"}}, at("C"));
    Program p = b.finish();
    CHECK(node_ops(p) == Strings{"C.join1:join", "C:aggregate"});
    const Node& j = p.node(*p.find("C.join1"));
    const auto& jop = std::get<JoinOp>(j.op);
    CHECK(jop.left_keys == KeyPositions{1});
    CHECK(jop.right_keys == KeyPositions{0});
    CHECK(jop.kernel.name() == "einsum");
    CHECK(j.lowered_from == "C");
    const Node& c = p.node(*p.find("C"));
    CHECK(std::get<AggregateOp>(c.op).by == KeyPositions{0, 2});
    CHECK(std::get<AggregateOp>(c.op).kernel.name() == "add");
    CHECK(c.type.bound == Shape{3, 5});
    CHECK(c.frontier == Frontier{2, 2});
    CHECK(c.lowered_from == "C");
}

TEST_CASE("einsum lowering: a transpose is a tile transform and a rekey", "[einsum][lowering]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("A", Shape{6, 4}, Shape{3, 2}, DType::F64, small_integers_input(1), at("A"));
    b.add_einsum("T", EinsumStep{"ij->ji", {"A"}}, at("T"));
    b.add_einsum("S", EinsumStep{"ij->ij", {"A"}}, at("S"));
    Program p = b.finish();
    CHECK(node_ops(p) == Strings{"T.tiles:transform", "T:rekey", "S:transform"});
    const Node& t = p.node(*p.find("T"));
    CHECK(t.type.bound == Shape{2, 3});
    CHECK(t.frontier == Frontier{2, 2});
    CHECK(p.node(*p.find("S")).type.bound == Shape{3, 2});
}

TEST_CASE("einsum lowering: errors are located at the step's fields", "[einsum][errors]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("A", Shape{4, 6}, Shape{2, 3}, DType::F64, small_integers_input(1), at("A"));
    b.add_input("B", Shape{6, 4}, Shape{2, 2}, DType::F64, small_integers_input(2),
                at("B"));  // j tiled 3 x 2
    b.add_input("C", Shape{5, 4}, Shape{5, 2}, DType::F64, small_integers_input(3),
                at("C"));  // extent 5
    b.add_input("G", Shape{6, 4}, Shape{3, 2}, DType::F64, small_integers_input(4), at("G"));
    StepSource src = at("program[0].E");
    src.fields["einsum"] = SourceLocation{"e.yaml", 5, 15, "program[0].E.einsum"};
    src.fields["inputs"] = SourceLocation{"e.yaml", 5, 40, "program[0].E.inputs"};
    src.fields["join"] = SourceLocation{"e.yaml", 5, 55, "program[0].E.join"};
    src.fields["agg"] = SourceLocation{"e.yaml", 5, 66, "program[0].E.agg"};

    CHECK_THROWS_WITH(b.add_einsum("E", EinsumStep{"ij,jk->ik", {"A", "B"}}, src),
                      Catch::StartsWith("e.yaml:5:40: program[0].E.inputs: ") &&
                          Catch::Contains("label 'j' is tiled as 2 x 3 in A but as 3 x 2 in B; "
                                          "the tile counts must divide each other"));
    CHECK_THROWS_WITH(b.add_einsum("E", EinsumStep{"ij,jk->ik", {"A", "C"}}, src),
                      Catch::Contains("label 'j'"));
    CHECK_THROWS_WITH(b.add_einsum("E", EinsumStep{"ii->i", {"A"}}, src),
                      Catch::StartsWith("e.yaml:5:40: program[0].E.inputs: ") &&
                          Catch::Contains("label 'i' is tiled as 2 x 2 at dimension 0 of A"));
    CHECK_THROWS_WITH(b.add_einsum("E", EinsumStep{"ij,jk->ik", {"A"}}, src),
                      Catch::StartsWith("e.yaml:5:40: program[0].E.inputs: ") &&
                          Catch::Contains("has 2 operand(s) but inputs names 1"));
    CHECK_THROWS_WITH(b.add_einsum("E", EinsumStep{"ijk->ik", {"A"}}, src),
                      Catch::Contains("must be a plain tensor with 3 dimensions"));
    CHECK_THROWS_WITH(b.add_einsum("E", EinsumStep{"ij,jk->ik", {"A", "G"}, "matmul", "add"}, src),
                      Catch::StartsWith("e.yaml:5:55: program[0].E.join: "));
    CHECK_THROWS_WITH(b.add_einsum("E", EinsumStep{"ij,jk->ik", {"A", "G"}, "mul", "sub"}, src),
                      Catch::StartsWith("e.yaml:5:66: program[0].E.agg: "));
    CHECK_THROWS_WITH(b.add_einsum("E", EinsumStep{"ij,jk->ik", {"A", "Nope"}}, src),
                      Catch::Contains("unknown relation 'Nope'"));
    // An operand with holes is not a plain tensor.
    b.add_filter("F", "G", "k0 == k1", at("F"));
    CHECK_THROWS_WITH(b.add_einsum("E", EinsumStep{"ij,jk->ik", {"A", "F"}}, src),
                      Catch::Contains("with holes"));
    // The good one still works after all that.
    b.add_einsum("E", EinsumStep{"ij,jk->ik", {"A", "G"}}, src);
    CHECK(b.lookup_optional("E"));
}
