// Block sparsity in the program (tra/sparse_rules.hpp, docs/workflow-format.md "Sparse
// tensors"): which tiles each step keeps of sparse-derived relations, their frontier (the dense
// equivalent's), the fills inserted where absent tiles take part as zeros (and for which keys),
// and the presence function of `density:` (checked against tools/reference/tragen.py in the CLI
// tests).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "optimizer/rule_steps.hpp"
#include "storage/generator.hpp"
#include "tra/program_builder.hpp"

using namespace tra;
using kernels::KernelCall;

namespace {

StepSource at(const std::string& step) {
    StepSource s;
    s.step = SourceLocation{"sparse.yaml", 4, 3, step};
    return s;
}

InputSource with_density(double density, std::uint64_t seed = 1) {
    InputSource s;
    storage::GeneratorSpec g;
    g.seed = seed;
    g.density = density;
    s.generate = g;
    return s;
}

// A file input of `present` tiles (what storage::allocated_tiles reads).
NodeId sparse_file(ProgramBuilder& b, const std::string& name, const Shape& shape,
                   const Shape& tile, std::vector<Key> present) {
    InputSource s;
    s.file = name + ".h5";
    s.dataset = "/" + name;
    s.sparse = true;
    return b.add_input(name, shape, tile, DType::F64, s, at("inputs." + name), present);
}

std::string problem_text(const Checked<NodeId>& r) {
    REQUIRE_FALSE(r);
    return r.problem().message();
}

}  // namespace

TEST_CASE("density: presence is a function of seed and tile index, near the density") {
    storage::GeneratorSpec g;
    g.seed = 9;
    g.density = 0.25;
    const Frontier tiles{40, 50};
    int present = 0;
    for (const Key& k : KeySet::box(tiles)) present += storage::tile_present(g, tiles, k);
    CHECK(present > 2000 * 0.2);
    CHECK(present < 2000 * 0.3);
    // Index t = 3 * 50 + 7 of the grid, whatever the call order.
    CHECK(storage::tile_present(g, tiles, Key{3, 7}) == storage::tile_present(g, tiles, Key{3, 7}));
    g.density = 1.0;
    CHECK(storage::tile_present(g, tiles, Key{0, 0}));
}

TEST_CASE("sparse inputs hold their present tiles and keep the dense frontier") {
    ProgramBuilder b("s", DType::F64);
    // Only tile (0, 0) of a 3 x 2 grid: the frontier is still [3, 2].
    const NodeId a = sparse_file(b, "A", Shape{6, 4}, Shape{2, 2}, {Key{0, 0}});
    const Node& A = b.node(a);
    CHECK(A.sparse);
    CHECK(A.tuples() == 1);
    CHECK(A.frontier == Frontier{3, 2});
    CHECK(A.absent_tuples() == 5);
    // Every tile present: a box, sparse but with nothing absent.
    const NodeId f =
        sparse_file(b, "F", Shape{2, 2}, Shape{1, 1}, {Key{0, 0}, Key{0, 1}, Key{1, 0}, Key{1, 1}});
    CHECK(b.node(f).keys.held_as_box());
    CHECK(b.node(f).absent_tuples() == 0);
    // density 1 is a dense input.
    const NodeId d =
        b.add_input("D", Shape{4, 4}, Shape{2, 2}, DType::F64, with_density(1.0), at("inputs.D"));
    CHECK_FALSE(b.node(d).sparse);
}

TEST_CASE("a zero-annihilating join meets present pairs only, the rest keep the dense frontier") {
    ProgramBuilder b("s", DType::F64);
    sparse_file(b, "A", Shape{4, 4}, Shape{2, 2}, {Key{0, 0}, Key{1, 1}});
    sparse_file(b, "B", Shape{4, 4}, Shape{2, 2}, {Key{0, 1}, Key{1, 1}});
    const NodeId j = b.add_join("J", "A", "B", {1}, {0}, KernelCall("matmul"), at("J"));
    // (i, k) x (k, j): (0,0)x(0,1) and (1,1)x(1,1) meet.
    const Node& J = b.node(j);
    CHECK(J.sparse);
    CHECK(J.tuples() == 2);
    CHECK(J.frontier == Frontier{2, 2, 2});
    const NodeId c = b.add_aggregate("C", "J", {0, 2}, KernelCall("add"), at("C"));
    CHECK(b.node(c).tuples() == 2);
    CHECK(b.node(c).frontier == Frontier{2, 2});
    // A zero-preserving transform keeps the holes; a permutation moves them.
    CHECK(b.node(b.add_transform("R", "C", KernelCall("relu"), at("R"))).tuples() == 2);
    const NodeId t = b.add_rekey("T", "C", "(k1, k0)", at("T"));
    CHECK(b.node(t).keys.contains(Key{1, 0}));
    CHECK(b.node(t).sparse);
    // Outputs may be sparse-derived (zeros written where absent).
    CHECK_FALSE(b.try_add_output("C", "c.h5", "/C", at("outputs.C")));
}

TEST_CASE("steps where absent tiles take part as zeros read a fill of just the keys they need") {
    ProgramBuilder b("s", DType::F64);
    // A holds the diagonal tiles of a 2 x 2 grid, B tile (0, 1), D all four.
    sparse_file(b, "A", Shape{4, 4}, Shape{2, 2}, {Key{0, 0}, Key{1, 1}});
    sparse_file(b, "B", Shape{4, 4}, Shape{2, 2}, {Key{0, 1}});
    b.add_input("D", Shape{4, 4}, Shape{2, 2}, DType::F64, with_density(1.0), at("inputs.D"));
    auto fill_of = [&](const std::string& name) -> const Node& {
        const auto id = b.lookup_optional(name);
        REQUIRE(id);
        const Node& n = b.node(*id);
        CHECK(std::holds_alternative<FillOp>(n.op));
        CHECK(n.frontier == Frontier{2, 2});
        return n;
    };
    // add(0, 0) = 0: each side is filled where the other has a tile: the union, 3 keys.
    const NodeId s = b.add_join("S", "A", "B", {0, 1}, {0, 1}, KernelCall("add"), at("S"));
    CHECK(b.node(s).tuples() == 3);
    CHECK(b.node(s).sparse);
    CHECK(fill_of("S.fill0").tuples() == 3);  // A's 2 and B's (0, 1)
    CHECK(fill_of("S.fill1").tuples() == 3);
    // Against a dense operand the whole box.
    CHECK(b.node(b.add_join("T", "A", "D", {0, 1}, {0, 1}, KernelCall("sub"), at("T"))).tuples() ==
          4);
    CHECK_FALSE(b.lookup_optional("T.fill1"));  // D has nothing absent
    // mul meets present pairs only: no fill.
    CHECK(b.node(b.add_join("M", "A", "B", {0, 1}, {0, 1}, KernelCall("mul"), at("M"))).tuples() ==
          0);
    CHECK_FALSE(b.lookup_optional("M.fill0"));
    // exp(0) = 1: every tile; relu keeps zeros.
    CHECK(b.node(b.add_transform("E", "B", KernelCall("exp"), at("E"))).tuples() == 4);
    CHECK(fill_of("E.fill").tuples() == 4);
    b.add_transform("R", "B", KernelCall("relu"), at("R"));
    CHECK_FALSE(b.lookup_optional("R.fill"));
    // max over rows: only row groups with a present member are completed (B: row 0).
    const NodeId x = b.add_aggregate("X", "B", {0}, KernelCall("max"), at("X"));
    CHECK(fill_of("X.fill").tuples() == 2);
    CHECK(b.node(x).tuples() == 1);
    CHECK(b.node(x).frontier == Frontier{2});
    // add skips absent tiles: no fill.
    b.add_aggregate("Y", "A", {0}, KernelCall("add"), at("Y"));
    CHECK_FALSE(b.lookup_optional("Y.fill"));
    // A condition or arithmetic on key values sees the whole box.
    CHECK(b.node(b.add_filter("F", "B", "k0 == k1", at("F"))).tuples() == 2);
    CHECK(fill_of("F.fill").tuples() == 4);
    CHECK(b.node(b.add_rekey("K", "B", "(k0 + 1, k1)", at("K"))).tuples() == 4);
}

TEST_CASE("a fill is refused where the operand's box passes the tuple limit") {
    ProgramBuilder b("s", DType::F64);
    sparse_file(b, "A", Shape{8, 8}, Shape{1, 1}, {Key{0, 0}});
    b.set_max_tuples(32);
    CHECK(problem_text(b.try_add_transform("E", "A", KernelCall("exp"), at("E")))
              .find("A filled with zeros for E") != std::string::npos);
}

TEST_CASE("max over complete or wholly absent groups and concat of complete ones need no fill") {
    ProgramBuilder b("s", DType::F64);
    // Row 0 complete, row 1 absent.
    sparse_file(b, "A", Shape{4, 4}, Shape{2, 2}, {Key{0, 0}, Key{0, 1}});
    const NodeId m = b.add_aggregate("M", "A", {0}, KernelCall("max"), at("M"));
    CHECK(b.node(m).tuples() == 1);
    CHECK_FALSE(b.lookup_optional("M.fill"));
    CHECK(b.node(m).frontier == Frontier{2});
    const NodeId c = b.add_concat("C", "A", 1, 1, at("C"));
    CHECK(b.node(c).tuples() == 1);
    CHECK(b.node(c).frontier == Frontier{2});
    CHECK(b.node(c).type.bound == Shape{2, 4});
    CHECK_FALSE(b.lookup_optional("C.fill"));
    // A group with some pieces present gets the others as zeros.
    sparse_file(b, "H", Shape{4, 4}, Shape{2, 2}, {Key{0, 0}});
    CHECK(b.node(b.add_concat("HC", "H", 1, 1, at("HC"))).tuples() == 1);
    CHECK(b.node(*b.lookup_optional("HC.fill")).tuples() == 2);
}

TEST_CASE("sparse: true is for files, density in (0, 1], no slices of sparse inputs") {
    ProgramBuilder b("s", DType::F64);
    InputSource both = with_density(0.5);
    both.sparse = true;
    CHECK(problem_text(b.try_add_input("A", Shape{4}, Shape{2}, DType::F64, both, at("A")))
              .find("for file inputs") != std::string::npos);
    CHECK(problem_text(
              b.try_add_input("B", Shape{4}, Shape{2}, DType::F64, with_density(0.0), at("B")))
              .find("density must be in (0, 1]") != std::string::npos);
    InputSource sliced = with_density(0.5);
    sliced.slice = InputSource::Slice{0, 2};
    CHECK(problem_text(b.try_add_input("C", Shape{4}, Shape{2}, DType::F64, sliced, at("C")))
              .find("a slice at a time") != std::string::npos);
}

TEST_CASE("logical rewrites rebuild a sparse program with the file's tiles and sparse outputs") {
    ProgramBuilder b("s", DType::F64);
    sparse_file(b, "A", Shape{4, 4}, Shape{2, 2}, {Key{0, 1}});
    b.add_transform("R", "A", KernelCall("relu"), at("R"));
    b.add_output("R", "r.h5", "/R", at("outputs.R"), true);
    const Program p = b.finish();
    const Checked<Program> again = optimizer::build_steps(optimizer::to_steps(p));
    REQUIRE(again);
    CHECK(again->node(0).keys == p.node(0).keys);
    CHECK(again->node(0).sparse);
    CHECK(again->node(1).frontier == Frontier{2, 2});
    CHECK(again->outputs.at(0).sparse);
}

TEST_CASE("logical rewrites leave fills to the builder, which inserts them again") {
    ProgramBuilder b("s", DType::F64);
    sparse_file(b, "A", Shape{4, 4}, Shape{2, 2}, {Key{0, 1}});
    b.add_transform("E", "A", KernelCall("exp"), at("E"));
    b.add_output("E", "e.h5", "/E", at("outputs.E"));
    const Program p = b.finish();
    const optimizer::Steps steps = optimizer::to_steps(p);
    CHECK(steps.steps.size() == 2);  // A and E: no step for E.fill
    CHECK(steps.steps.at(1).inputs.at(0) == "A");
    const Checked<Program> again = optimizer::build_steps(steps);
    REQUIRE(again);
    REQUIRE(again->find("E.fill"));
    CHECK(again->node(*again->find("E")).keys == p.node(*p.find("E")).keys);
}
