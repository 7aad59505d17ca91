// Einsum operands that tile a label differently (tra/einsum_retile.hpp): the `tile` and `rekey`
// steps the lowering adds to re-cut the coarser dimension to the finer tiling (and the `concat`
// that merges a finer follower to its leaders' cut), their types and
// key sets, the refusals (counts that do not divide each other, different extents), block-sparse
// operands, and the numbers of the ReferenceEvaluator against a naive sum over every assignment
// of the labels.
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "einsum_fixtures.hpp"
#include "runtime/reference_evaluator.hpp"
#include "storage/generator.hpp"
#include "tra/einsum_lowering.hpp"
#include "tra/program_builder.hpp"

using namespace tra;

namespace {

using tra::testing::assemble;
using tra::testing::einsum_at;
using tra::testing::node_ops;
using tra::testing::small_integers_input;

// One einsum operand: its labels and its tile (the shape follows from the labels' extents).
struct Operand {
    std::string labels;
    Shape tile;
};

using Extents = std::map<char, std::int64_t>;

// The naive einsum of the operands as evaluated.
std::vector<double> naive(const std::vector<Operand>& ops,
                          const std::vector<std::vector<double>>& values, const std::string& output,
                          const Extents& extent) {
    std::vector<std::string> labels;
    for (const Operand& op : ops) labels.push_back(op.labels);
    return tra::testing::naive_einsum(labels, values, output, extent);
}

// Builds `spec` on operands generated with seeds 11, 12, ... (density: of the first operand),
// evaluates it and compares with the naive sum over the operands as evaluated (so absent tiles
// of a sparse operand count as zeros). Returns the program for further checks.
Program check_numbers(const std::string& spec, const std::vector<Operand>& ops,
                      const Extents& extent, double density = 1.0,
                      const std::vector<std::size_t>& followers = {}) {
    INFO(spec);
    const EinsumSpec s = EinsumSpec::parse(spec);
    ProgramBuilder b("p", DType::F64);
    std::vector<std::string> inputs;
    std::vector<Shape> shapes;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        Shape shape;
        for (char c : ops[i].labels) shape.push_back(extent.at(c));
        shapes.push_back(shape);
        inputs.push_back("X" + std::to_string(i));
        b.add_input(inputs.back(), shape, ops[i].tile, DType::F64,
                    small_integers_input(11 + i, i == 0 ? density : 1.0), einsum_at(inputs.back()));
    }
    EinsumStep step{spec, inputs};
    step.followers = followers;
    b.add_einsum("E", step, einsum_at("E"));
    Program p = b.finish();
    runtime::ReferenceEvaluator ev(p);
    std::vector<std::vector<double>> values;
    for (std::size_t i = 0; i < ops.size(); ++i)
        values.push_back(assemble(ev.evaluate(*p.find(inputs[i])), shapes[i]));
    Shape out_shape;
    for (char c : s.output) out_shape.push_back(extent.at(c));
    const std::vector<double> got = assemble(ev.evaluate(*p.find("E")), out_shape);
    const std::vector<double> want = naive(ops, values, s.output, extent);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == want[i]);
    return p;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("einsum retile: the coarser operand is tiled and rekeyed to the finer tiling",
          "[einsum][retile][lowering]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("A", Shape{4, 12}, Shape{2, 6}, DType::F64, small_integers_input(1),
                einsum_at("A"));  // j: 2 x 6
    b.add_input("B", Shape{12, 4}, Shape{3, 2}, DType::F64, small_integers_input(2),
                einsum_at("B"));  // j: 4 x 3
    b.add_einsum("D", EinsumStep{"ij,jk->ik", {"A", "B"}}, einsum_at("D"));
    Program p = b.finish();
    CHECK(node_ops(p) ==
          Strings{"D.retile1.tile1:tile", "D.retile1:rekey", "D.join1:join", "D:aggregate"});
    const Node& split = p.node(*p.find("D.retile1.tile1"));
    CHECK(std::get<TileOp>(split.op).dim == 1);
    CHECK(std::get<TileOp>(split.op).size == 3);
    CHECK(split.frontier == Frontier{2, 2, 2});  // A's 2 x 2 tiles, each in 2 pieces
    const Node& retiled = p.node(*p.find("D.retile1"));
    CHECK(std::get<RekeyOp>(retiled.op).key.text() == "(k0, k1 * 2 + k2)");
    CHECK(retiled.is_tensor());
    CHECK(retiled.frontier == Frontier{2, 4});
    CHECK(retiled.type.bound == Shape{2, 3});
    CHECK(retiled.tuples() == 8);
    for (const char* n : {"D.retile1.tile1", "D.retile1", "D.join1", "D"})
        CHECK(p.node(*p.find(n)).lowered_from == "D");
    // The join meets the re-tiled A and B as they are.
    const Node& join = p.node(*p.find("D.join1"));
    CHECK(p.node(join.inputs[0]).name == "D.retile1");
    CHECK(p.node(join.inputs[1]).name == "B");
}

TEST_CASE("einsum retile: each operand and dimension is re-cut where it is coarser",
          "[einsum][retile][lowering]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("A", Shape{6, 12}, Shape{6, 2}, DType::F64, small_integers_input(1),
                einsum_at("A"));  // 1 x 6, 6 x 2
    b.add_input("B", Shape{6, 12}, Shape{2, 6}, DType::F64, small_integers_input(2),
                einsum_at("B"));  // 3 x 2, 2 x 6
    b.add_input("C", Shape{6, 12}, Shape{6, 4}, DType::F64, small_integers_input(3),
                einsum_at("C"));  // 1 x 6, 3 x 4
    b.add_einsum("D", EinsumStep{"ij,ij,ij->ij", {"A", "B", "C"}}, einsum_at("D"));
    Program p = b.finish();
    // i is finest in B (3 tiles), j in A (6): A's i, B's j, and both of C's dimensions are re-cut;
    // one rekey per operand folds all its pieces.
    const Strings ops = node_ops(p);
    const Strings retiles(ops.begin(), ops.begin() + 6);
    CHECK(retiles == Strings{"D.retile1.tile0:tile", "D.retile1:rekey", "D.retile2.tile1:tile",
                             "D.retile2:rekey", "D.retile3.tile0:tile", "D.retile3.tile1:tile"});
    CHECK(ops.at(6) == "D.retile3:rekey");
    CHECK(std::get<RekeyOp>(p.node(*p.find("D.retile1")).op).key.text() == "(k0 * 3 + k2, k1)");
    CHECK(std::get<RekeyOp>(p.node(*p.find("D.retile2")).op).key.text() == "(k0, k1 * 3 + k2)");
    const Node& c = p.node(*p.find("D.retile3"));
    CHECK(std::get<RekeyOp>(c.op).key.text() == "(k0 * 3 + k2, k1 * 2 + k3)");
    for (const char* n : {"D.retile1", "D.retile2", "D.retile3"}) {
        CHECK(p.node(*p.find(n)).frontier == Frontier{3, 6});
        CHECK(p.node(*p.find(n)).type.bound == Shape{2, 2});
    }
    // Alike already: nothing is added.
    ProgramBuilder same("q", DType::F64);
    same.add_input("A", Shape{4, 6}, Shape{2, 3}, DType::F64, small_integers_input(1),
                   einsum_at("A"));
    same.add_input("B", Shape{6, 4}, Shape{3, 2}, DType::F64, small_integers_input(2),
                   einsum_at("B"));
    same.add_einsum("D", EinsumStep{"ij,jk->ik", {"A", "B"}}, einsum_at("D"));
    CHECK(node_ops(same.finish()) == Strings{"D.join1:join", "D:aggregate"});
}

TEST_CASE("einsum retile: the numbers equal a naive einsum", "[einsum][retile][numbers]") {
    // Shared label cut 2 vs 4, the finer on either side.
    check_numbers("ij,jk->ik", {{"ij", {2, 6}}, {"jk", {3, 2}}}, {{'i', 4}, {'j', 12}, {'k', 4}});
    check_numbers("ij,jk->ik", {{"ij", {2, 3}}, {"jk", {6, 2}}}, {{'i', 4}, {'j', 12}, {'k', 4}});
    // Both dimensions of one operand, element-wise, and a summed-out label with three operands.
    check_numbers("ij,ij->ij", {{"ij", {6, 12}}, {"ij", {2, 3}}}, {{'i', 6}, {'j', 12}});
    check_numbers("ij,jk,kl->il", {{"ij", {4, 6}}, {"jk", {2, 4}}, {"kl", {2, 3}}},
                  {{'i', 4}, {'j', 6}, {'k', 8}, {'l', 3}});
    // A label kept by both operands and summed at the end: "i,i->i" with 1 vs 3 tiles.
    check_numbers("i,i->i", {{"i", {6}}, {"i", {2}}}, {{'i', 6}});
}

TEST_CASE("einsum retile: a follower takes the leaders' cut, merged where it is finer",
          "[einsum][retile][lowering]") {
    // B follows (a step's result under tile: auto): its j (6 tiles) is merged to A's 2 and its
    // k (1 tile) split to C's 2, in one rekey that appends j's piece and one concat of it.
    ProgramBuilder b("p", DType::F64);
    b.add_input("A", Shape{4, 12}, Shape{4, 6}, DType::F64, small_integers_input(1),
                einsum_at("A"));
    b.add_input("B", Shape{12, 8}, Shape{2, 8}, DType::F64, small_integers_input(2),
                einsum_at("B"));
    b.add_input("C", Shape{8, 3}, Shape{4, 3}, DType::F64, small_integers_input(3), einsum_at("C"));
    EinsumStep step{"ij,jk,kl->il", {"A", "B", "C"}};
    step.followers = {1};
    b.add_einsum("E", step, einsum_at("E"));
    Program p = b.finish();
    const Strings ops = node_ops(p);
    const Strings retiles(ops.begin(), ops.begin() + 3);
    CHECK(retiles == Strings{"E.retile2.tile1:tile", "E.retile2.group:rekey", "E.retile2:concat"});
    CHECK(std::get<RekeyOp>(p.node(*p.find("E.retile2.group")).op).key.text() ==
          "(k0 / 3, k1 * 2 + k2, k0 % 3)");
    const Node& merged = p.node(*p.find("E.retile2"));
    CHECK(std::get<ConcatOp>(merged.op).key_dim == 2);
    CHECK(std::get<ConcatOp>(merged.op).array_dim == 0);
    CHECK(merged.frontier == Frontier{2, 2});
    CHECK(merged.type.bound == Shape{6, 4});
    CHECK_FALSE(p.find("E.retile1").has_value());  // the leaders keep their cut
    // Counts a follower's cut and the leaders' do not divide either way: refused.
    ProgramBuilder odd("q", DType::F64);
    odd.add_input("A", Shape{4, 12}, Shape{4, 4}, DType::F64, small_integers_input(1),
                  einsum_at("A"));
    odd.add_input("B", Shape{12, 8}, Shape{6, 8}, DType::F64, small_integers_input(2),
                  einsum_at("B"));
    EinsumStep two{"ij,jk->ik", {"A", "B"}};
    two.followers = {1};
    CHECK_THROWS_WITH(odd.add_einsum("E", two, einsum_at("E")),
                      Catch::Contains("label 'j' is tiled as 3 x 4 in A but as 2 x 6 in B"));
}

TEST_CASE("einsum retile: merged followers give a naive einsum's numbers",
          "[einsum][retile][numbers]") {
    const Extents e{{'i', 4}, {'j', 12}, {'k', 8}};  // every label of the expression, no more
    check_numbers("ij,jk->ik", {{"ij", {4, 6}}, {"jk", {2, 4}}}, e, 1.0, {1});
    check_numbers("ij,jk->ik", {{"ij", {2, 6}}, {"jk", {2, 4}}}, e, 1.0, {0});
    check_numbers("ij,jk,kl->il", {{"ij", {4, 6}}, {"jk", {2, 8}}, {"kl", {4, 3}}},
                  {{'i', 4}, {'j', 12}, {'k', 8}, {'l', 3}}, 1.0, {1});
    // Both dimensions merged, element-wise; and a sparse follower (filled by its rekey).
    check_numbers("ij,ij->ij", {{"ij", {4, 12}}, {"ij", {1, 2}}}, {{'i', 4}, {'j', 12}}, 1.0, {1});
    check_numbers("jk,ij->ik", {{"jk", {2, 2}}, {"ij", {2, 12}}}, e, 0.5, {0});
}

TEST_CASE("einsum retile: a repeated label tiled differently within one operand",
          "[einsum][retile][diagonal]") {
    // The diagonal of S [12, 12] cut 2 x 6 by 4 x 3: dimension 0 is re-cut to 4 x 3 first.
    const Program p = check_numbers("ii->i", {{"ii", {6, 3}}}, {{'i', 12}});
    const Strings ops = node_ops(p);
    REQUIRE(ops.size() >= 5);
    CHECK(Strings(ops.begin(), ops.begin() + 5) ==
          Strings{"E.retile1.tile0:tile", "E.retile1:rekey", "E.diag1.keep:filter",
                  "E.diag1.tiles:transform", "E.diag1:rekey"});
    check_numbers("iij,jk->ik", {{"iij", {2, 4, 3}}, {"jk", {1, 2}}},
                  {{'i', 8}, {'j', 6}, {'k', 4}});
    check_numbers("ii->", {{"ii", {1, 3}}}, {{'i', 6}});
}

TEST_CASE("einsum retile: a block-sparse operand is filled, then re-tiled",
          "[einsum][retile][sparse]") {
    // X0 holds about half its tiles; the rekey reads key values, so its absent tiles become
    // zeros (X0 is then dense), and the numbers are those of the operand with zeros there.
    const Program p = check_numbers("ij,jk->ik", {{"ij", {2, 6}}, {"jk", {3, 2}}},
                                    {{'i', 8}, {'j', 12}, {'k', 4}}, 0.5);
    const Node& input = p.node(*p.find("X0"));
    REQUIRE(input.sparse);
    CHECK(input.absent_tuples() > 0);
    CHECK(p.node(*p.find("E.retile1.tile1")).sparse);
    const Node& fill = p.node(*p.find("E.retile1.fill"));
    CHECK(std::holds_alternative<FillOp>(fill.op));
    CHECK(fill.lowered_from == "E");
    CHECK(p.node(*p.find("E.retile1")).is_tensor());
}

TEST_CASE("einsum retile: counts that do not divide, or different extents, are refused",
          "[einsum][retile][errors]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("A", Shape{4, 6}, Shape{2, 3}, DType::F64, small_integers_input(1),
                einsum_at("A"));  // j: 2 x 3
    b.add_input("B", Shape{6, 4}, Shape{2, 2}, DType::F64, small_integers_input(2),
                einsum_at("B"));  // j: 3 x 2
    b.add_input("C", Shape{8, 4}, Shape{2, 2}, DType::F64, small_integers_input(3),
                einsum_at("C"));  // j: 4 x 2
    b.add_input("S", Shape{6, 6}, Shape{2, 3}, DType::F64, small_integers_input(4),
                einsum_at("S"));  // 3 x 2 by 2 x 3
    try {
        b.add_einsum("E", EinsumStep{"ij,jk->ik", {"A", "B"}}, einsum_at("program[0].E"));
        FAIL("no error");
    } catch (const Error& e) {
        CHECK(e.exit_code() == 2);
        CHECK_THAT(std::string(e.what()),
                   Catch::StartsWith("e.yaml:5:40: program[0].E.inputs: ") &&
                       Catch::Contains("label 'j' is tiled as 2 x 3 in A but as 3 x 2 in B") &&
                       Catch::Contains("the tile counts must divide each other"));
    }
    // The finer written first: the two still in written order.
    CHECK_THROWS_WITH(
        b.add_einsum("F", EinsumStep{"jk,ij->ik", {"B", "A"}}, einsum_at("program[1].F")),
        Catch::Contains("label 'j' is tiled as 3 x 2 in B but as 2 x 3 in A"));
    // 2 divides 4, but the extents differ (6 and 8).
    CHECK_THROWS_WITH(
        b.add_einsum("G", EinsumStep{"ij,jk->ik", {"A", "C"}}, einsum_at("program[2].G")),
        Catch::Contains("label 'j' is tiled as 2 x 3 in A but as 4 x 2 in C") &&
            Catch::Contains("it spans 6 elements in one and 8 in the other"));
    CHECK_THROWS_WITH(b.add_einsum("H", EinsumStep{"ii->i", {"S"}}, einsum_at("program[3].H")),
                      Catch::Contains("label 'i' is tiled as 3 x 2 at dimension 0 of S but as "
                                      "2 x 3 at dimension 1") &&
                          Catch::Contains("must divide each other"));
    // Nothing was added for the refused steps.
    for (const char* n :
         {"E.retile1.tile1", "E.retile2", "F.retile2.tile0", "G.retile1.tile1", "H.retile1.tile0"})
        CHECK_FALSE(b.lookup_optional(n));
}
