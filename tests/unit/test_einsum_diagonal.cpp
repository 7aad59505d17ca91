// Einsum with a label repeated within one operand (diagonals and traces): the TRA steps the
// lowering adds (filter on the key diagonal, diagonal tile kernel, rekey), their exact key sets,
// the tiling check, and the numbers of the ReferenceEvaluator against a naive sum over every
// assignment of the labels, on tensors cut into several tiles per dimension.
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

struct Operand {
    std::string labels;
    std::uint64_t seed;
};

// The naive einsum of the generated operands (whole tensors made element by element).
std::vector<double> naive(const std::vector<Operand>& ops, const std::string& output,
                          const std::map<char, std::int64_t>& extent) {
    std::vector<std::string> labels;
    std::vector<std::vector<double>> values;
    for (const Operand& op : ops) {
        Shape shape;
        for (char c : op.labels) shape.push_back(extent.at(c));
        std::vector<double> v(static_cast<std::size_t>(shape.product()));
        for (std::size_t i = 0; i < v.size(); ++i)
            v[i] = storage::generated_value(tra::testing::small_integers(op.seed), i);
        labels.push_back(op.labels);
        values.push_back(std::move(v));
    }
    return tra::testing::naive_einsum(labels, values, output, extent);
}

// Builds `spec` on inputs cut as `tiles` per label (count x size), evaluates it and compares
// with the naive sum.
void check_numbers(const std::string& spec, const std::vector<Operand>& ops,
                   const std::map<char, std::pair<std::int64_t, std::int64_t>>& tiles) {
    INFO(spec);
    const EinsumSpec s = EinsumSpec::parse(spec);
    ProgramBuilder b("p", DType::F64);
    std::vector<std::string> inputs;
    std::map<char, std::int64_t> extent;
    for (auto& [c, t] : tiles) extent[c] = t.first * t.second;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        Shape shape, tile;
        for (char c : ops[i].labels) {
            shape.push_back(extent.at(c));
            tile.push_back(tiles.at(c).second);
        }
        inputs.push_back("X" + std::to_string(i));
        b.add_input(inputs.back(), shape, tile, DType::F64, small_integers_input(ops[i].seed),
                    einsum_at(inputs.back()));
    }
    b.add_einsum("E", EinsumStep{spec, inputs}, einsum_at("E"));
    Program p = b.finish();
    runtime::ReferenceEvaluator ev(p);
    Shape out_shape;
    for (char c : s.output) out_shape.push_back(extent.at(c));
    const std::vector<double> got = assemble(ev.evaluate(*p.find("E")), out_shape);
    const std::vector<double> want = naive(ops, s.output, extent);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == want[i]);
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("einsum diagonal: filter, diagonal kernel and rekey before the join",
          "[einsum][diagonal][lowering]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("A", Shape{6, 6, 4}, Shape{2, 2, 2}, DType::F64, small_integers_input(1),
                einsum_at("A"));
    b.add_input("B", Shape{4, 5}, Shape{2, 5}, DType::F64, small_integers_input(2), einsum_at("B"));
    b.add_einsum("D", EinsumStep{"iij,jk->ik", {"A", "B"}}, einsum_at("D"));
    Program p = b.finish();
    CHECK(node_ops(p) == Strings{"D.diag1.keep:filter", "D.diag1.tiles:transform", "D.diag1:rekey",
                                 "D.join1:join", "D:aggregate"});
    const Node& keep = p.node(*p.find("D.diag1.keep"));
    CHECK(std::get<FilterOp>(keep.op).where.text() == "k0 == k1");
    CHECK(keep.tuples() == 3 * 2);  // of 3 * 3 * 2: the key diagonal only
    const Node& tiles = p.node(*p.find("D.diag1.tiles"));
    CHECK(std::get<TransformOp>(tiles.op).kernel.str() == "diagonal(iij->ij)");
    CHECK(tiles.type.bound == Shape{2, 2});
    const Node& diag = p.node(*p.find("D.diag1"));
    CHECK(std::get<RekeyOp>(diag.op).key.text() == "(k0, k2)");
    CHECK(diag.is_tensor());
    CHECK(diag.frontier == Frontier{3, 2});
    for (const char* n : {"D.diag1.keep", "D.diag1.tiles", "D.diag1", "D.join1", "D"})
        CHECK(p.node(*p.find(n)).lowered_from == "D");
    // The join sees the distinct labels "ij,jk".
    CHECK(std::get<JoinOp>(p.node(*p.find("D.join1")).op).kernel.str() ==
          "einsum(ij,jk->ik; join=mul, agg=add)");
}

TEST_CASE("einsum diagonal: a label three times and two repeated labels in one operand",
          "[einsum][diagonal][lowering]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("C", Shape{4, 4, 4}, Shape{2, 2, 2}, DType::F64, small_integers_input(1),
                einsum_at("C"));
    b.add_input("Q", Shape{4, 3, 4, 3}, Shape{2, 3, 2, 3}, DType::F64, small_integers_input(2),
                einsum_at("Q"));
    b.add_einsum("T", EinsumStep{"fff->f", {"C"}}, einsum_at("T"));
    b.add_einsum("U", EinsumStep{"abab->ba", {"Q"}}, einsum_at("U"));
    Program p = b.finish();
    CHECK(std::get<FilterOp>(p.node(*p.find("T.diag1.keep")).op).where.text() ==
          "k0 == k1 && k0 == k2");
    CHECK(std::get<RekeyOp>(p.node(*p.find("T.diag1")).op).key.text() == "(k0)");
    CHECK(std::get<FilterOp>(p.node(*p.find("U.diag1.keep")).op).where.text() ==
          "k0 == k2 && k1 == k3");
    CHECK(p.node(*p.find("U.diag1")).frontier == Frontier{2, 1});
}

TEST_CASE("einsum diagonal: numbers against a naive sum", "[einsum][diagonal][numerics]") {
    using Tiles = std::map<char, std::pair<std::int64_t, std::int64_t>>;
    check_numbers("ii->i", {{"ii", 1}}, Tiles{{'i', {3, 2}}});
    check_numbers("ii->", {{"ii", 2}}, Tiles{{'i', {3, 2}}});  // trace
    check_numbers("ii", {{"ii", 3}}, Tiles{{'i', {2, 3}}});    // implicit output: trace
    check_numbers("iij,jk->ik", {{"iij", 4}, {"jk", 5}},
                  Tiles{{'i', {2, 2}}, {'j', {2, 1}}, {'k', {1, 3}}});
    check_numbers("aab,bc->ac", {{"aab", 6}, {"bc", 7}},
                  Tiles{{'a', {2, 2}}, {'b', {2, 2}}, {'c', {2, 1}}});
    check_numbers("aab,bcc->ac", {{"aab", 8}, {"bcc", 9}},
                  Tiles{{'a', {1, 3}}, {'b', {2, 2}}, {'c', {2, 2}}});
    check_numbers("bb,ff,be->e", {{"bb", 10}, {"ff", 11}, {"be", 12}},
                  Tiles{{'b', {2, 2}}, {'e', {2, 2}}, {'f', {3, 1}}});
    check_numbers("fff,fae->ae", {{"fff", 13}, {"fae", 14}},
                  Tiles{{'a', {1, 2}}, {'e', {2, 1}}, {'f', {2, 2}}});
    check_numbers("jbje,bj->e", {{"jbje", 15}, {"bj", 16}},
                  Tiles{{'b', {2, 1}}, {'e', {1, 2}}, {'j', {2, 2}}});
    check_numbers("iji->j", {{"iji", 17}}, Tiles{{'i', {3, 2}}, {'j', {2, 2}}});
    // Both operands the same relation, each taking its own diagonal.
    check_numbers("ii,jj->ij", {{"ii", 18}, {"jj", 19}}, Tiles{{'i', {2, 2}}, {'j', {2, 3}}});
}

TEST_CASE("einsum diagonal: a repeated label's dimensions need one extent and dividing counts",
          "[einsum][diagonal][errors]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("A", Shape{6, 6}, Shape{2, 3}, DType::F64, small_integers_input(1),
                einsum_at("A"));  // 3 x 2 vs 2 x 3
    b.add_input("B", Shape{6, 4}, Shape{2, 2}, DType::F64, small_integers_input(2), einsum_at("B"));
    b.add_input("V", Shape{6}, Shape{2}, DType::F64, small_integers_input(3), einsum_at("V"));
    try {
        b.add_einsum("E", EinsumStep{"ii->i", {"A"}}, einsum_at("program[0].E"));
        FAIL("no error");
    } catch (const Error& e) {
        CHECK(e.exit_code() == 2);
        CHECK_THAT(std::string(e.what()),
                   Catch::StartsWith("e.yaml:5:40: program[0].E.inputs: ") &&
                       Catch::Contains("label 'i' is tiled as 3 x 2 at dimension 0 of A but as "
                                       "2 x 3 at dimension 1; the tile counts must divide each "
                                       "other"));
    }
    // Extents differ: refused before any shape check, whatever the counts.
    CHECK_THROWS_WITH(b.add_einsum("F", EinsumStep{"ii->i", {"B"}}, einsum_at("program[1].F")),
                      Catch::Contains("label 'i' is tiled as 3 x 2 at dimension 0 of B but as "
                                      "2 x 2 at dimension 1; it spans 6 elements in one and 4"));
    CHECK_THROWS_WITH(b.add_einsum("G", EinsumStep{"ii->i", {"V"}}, einsum_at("program[2].G")),
                      Catch::Contains("must be a plain tensor with 2 dimensions"));
    // Nothing was added for the refused steps.
    CHECK_FALSE(b.lookup_optional("E.diag1.keep"));
    CHECK_FALSE(b.lookup_optional("F.diag1.keep"));
    // The output still may not repeat a label.
    CHECK_THROWS_WITH(b.add_einsum("H", EinsumStep{"ij->ii", {"B"}}, einsum_at("program[3].H")),
                      Catch::Contains("label 'i' is repeated in the output"));
}
