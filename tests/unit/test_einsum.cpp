// Einsum: spec parsing, the shape of the lowering (which TRA nodes it creates) and its numbers,
// evaluated with the ReferenceEvaluator and checked against naive loops over whole tensors.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "temp_dir.hpp"
#include "core/error.hpp"
#include "runtime/reference_evaluator.hpp"
#include "storage/generator.hpp"
#include "storage/tensor_file.hpp"
#include "tra/einsum_lowering.hpp"
#include "tra/einsum_orders.hpp"
#include "tra/program_builder.hpp"

using namespace tra;
namespace fs = std::filesystem;
using Kind = storage::GeneratorSpec::Kind;

namespace {

struct TempDir : testing::TempDir {
    TempDir() : testing::TempDir("einsum") {}
};

StepSource at(const std::string& step) {
    StepSource s;
    s.step = SourceLocation{"e.yaml", 4, 3, step};
    return s;
}

storage::GeneratorSpec ints(std::uint64_t seed, double lo = -3, double hi = 3) {
    storage::GeneratorSpec g;
    g.kind = Kind::Integers;
    g.lo = lo;
    g.hi = hi;
    g.seed = seed;
    return g;
}

InputSource from(const storage::GeneratorSpec& g) {
    InputSource s;
    s.generate = g;
    return s;
}

// A whole tensor in row-major order with its shape.
struct Dense {
    Shape shape;
    std::vector<double> v;
    double operator()(std::initializer_list<std::int64_t> idx) const {
        std::int64_t off = 0;
        std::size_t d = 0;
        for (auto i : idx) off = off * shape[d++] + i;
        return v.at(static_cast<std::size_t>(off));
    }
};

Dense generated(const Shape& shape, const storage::GeneratorSpec& g) {
    Dense d{shape, std::vector<double>(static_cast<std::size_t>(shape.product()))};
    for (std::size_t i = 0; i < d.v.size(); ++i) d.v[i] = storage::generated_value(g, i);
    return d;
}

// Assembles a relation in tensor layout (key arity == rank, no holes) into one dense tensor.
Dense assemble(const TensorRelation& r) {
    const std::size_t rank = r.type.rank();
    REQUIRE(r.type.key_arity == rank);
    const Frontier f = r.keys().frontier(rank);
    REQUIRE(r.keys().is_box(rank));
    Shape shape(rank);
    for (std::size_t d = 0; d < rank; ++d) shape[d] = f[d] * r.type.bound[d];
    Dense out{shape, std::vector<double>(static_cast<std::size_t>(shape.product()), 0.0)};
    for (const auto& [key, tile] : r.tuples) {
        REQUIRE(tile.shape() == r.type.bound);
        Shape local(rank);
        std::int64_t flat = 0;
        do {
            Shape global(rank);
            for (std::size_t d = 0; d < rank; ++d) global[d] = key[d] * r.type.bound[d] + local[d];
            out.v[static_cast<std::size_t>(row_major_offset(global, shape))] = tile.get(flat++);
        } while (rank && next_in_box(local, r.type.bound));
    }
    return out;
}

std::vector<std::string> node_ops(const Program& p) {
    std::vector<std::string> ops;
    for (const Node& n : p.nodes)
        if (!std::holds_alternative<InputOp>(n.op)) ops.push_back(n.name + ":" + operator_name(n.op));
    return ops;
}

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
    CHECK_THROWS_WITH(EinsumSpec::parse("iJ->i"), Catch::Contains("'J' in operand 1 is not a label"));
    CHECK_THROWS_WITH(EinsumSpec::parse("i1,1j->ij"), Catch::Contains("is not a label"));
    CHECK_THROWS_WITH(EinsumSpec::parse("ij->i.j"), Catch::Contains("'.' in the output is not a label"));
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
    b.add_input("A", Shape{6, 4}, Shape{3, 2}, DType::F64, from(ints(1)), at("A"));
    b.add_input("B", Shape{4, 10}, Shape{2, 5}, DType::F64, from(ints(2)), at("B"));
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
    b.add_input("A", Shape{6, 4}, Shape{3, 2}, DType::F64, from(ints(1)), at("A"));
    b.add_einsum("T", EinsumStep{"ij->ji", {"A"}}, at("T"));
    b.add_einsum("S", EinsumStep{"ij->ij", {"A"}}, at("S"));
    Program p = b.finish();
    CHECK(node_ops(p) == Strings{"T.tiles:transform", "T:rekey", "S:transform"});
    const Node& t = p.node(*p.find("T"));
    CHECK(t.type.bound == Shape{2, 3});
    CHECK(t.frontier == Frontier{2, 2});
    CHECK(p.node(*p.find("S")).type.bound == Shape{3, 2});
}

TEST_CASE("einsum lowering: elementwise product is a single join on both positions",
          "[einsum][lowering]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("A", Shape{6, 4}, Shape{3, 2}, DType::F64, from(ints(1)), at("A"));
    b.add_input("B", Shape{6, 4}, Shape{3, 2}, DType::F64, from(ints(2)), at("B"));
    b.add_einsum("H", EinsumStep{"ij,ij->ij", {"A", "B"}}, at("H"));
    Program p = b.finish();
    CHECK(node_ops(p) == Strings{"H:join"});
    const auto& op = std::get<JoinOp>(p.node(*p.find("H")).op);
    CHECK(op.left_keys == KeyPositions{0, 1});
    CHECK(op.right_keys == KeyPositions{0, 1});

    runtime::ReferenceEvaluator ev(p);
    Dense h = assemble(ev.evaluate(*p.find("H")));
    Dense a = generated(Shape{6, 4}, ints(1)), bb = generated(Shape{6, 4}, ints(2));
    for (std::size_t i = 0; i < h.v.size(); ++i) CHECK(h.v[i] == a.v[i] * bb.v[i]);
}

TEST_CASE("einsum numerics: matmul against naive loops", "[einsum][numerics]") {
    for (DType dt : {DType::F64, DType::F32}) {
        ProgramBuilder b("p", DType::F64);
        b.add_input("A", Shape{6, 8}, Shape{3, 2}, dt, from(ints(11)), at("A"));
        b.add_input("B", Shape{8, 10}, Shape{2, 5}, dt, from(ints(12)), at("B"));
        b.add_einsum("C", EinsumStep{"ik,kj->ij", {"A", "B"}}, at("C"));
        b.add_einsum("CT", EinsumStep{"ik,kj->ji", {"A", "B"}}, at("CT"));
        Program p = b.finish();
        runtime::ReferenceEvaluator ev(p);
        Dense c = assemble(ev.evaluate(*p.find("C")));
        Dense ct = assemble(ev.evaluate(*p.find("CT")));
        REQUIRE(c.shape == Shape{6, 10});
        REQUIRE(ct.shape == Shape{10, 6});
        Dense a = generated(Shape{6, 8}, ints(11)), bm = generated(Shape{8, 10}, ints(12));
        for (std::int64_t i = 0; i < 6; ++i)
            for (std::int64_t j = 0; j < 10; ++j) {
                double s = 0;
                for (std::int64_t k = 0; k < 8; ++k) s += a({i, k}) * bm({k, j});
                CHECK(c({i, j}) == s);
                CHECK(ct({j, i}) == s);
            }
    }
}

TEST_CASE("einsum numerics: batched matmul and an outer product", "[einsum][numerics]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("X", Shape{4, 6, 4}, Shape{2, 3, 2}, DType::F64, from(ints(3)), at("X"));
    b.add_input("Y", Shape{4, 4, 6}, Shape{2, 2, 3}, DType::F64, from(ints(4)), at("Y"));
    b.add_input("u", Shape{6}, Shape{3}, DType::F64, from(ints(5)), at("u"));
    b.add_input("v", Shape{4}, Shape{2}, DType::F64, from(ints(6)), at("v"));
    b.add_einsum("Z", EinsumStep{"bij,bjk->bik", {"X", "Y"}}, at("Z"));
    b.add_einsum("O", EinsumStep{"i,j->ji", {"u", "v"}}, at("O"));
    Program p = b.finish();
    runtime::ReferenceEvaluator ev(p);
    Dense z = assemble(ev.evaluate(*p.find("Z")));
    Dense o = assemble(ev.evaluate(*p.find("O")));
    Dense x = generated(Shape{4, 6, 4}, ints(3)), y = generated(Shape{4, 4, 6}, ints(4));
    Dense u = generated(Shape{6}, ints(5)), v = generated(Shape{4}, ints(6));
    REQUIRE(z.shape == Shape{4, 6, 6});
    for (std::int64_t bb = 0; bb < 4; ++bb)
        for (std::int64_t i = 0; i < 6; ++i)
            for (std::int64_t k = 0; k < 6; ++k) {
                double s = 0;
                for (std::int64_t j = 0; j < 4; ++j) s += x({bb, i, j}) * y({bb, j, k});
                CHECK(z({bb, i, k}) == s);
            }
    REQUIRE(o.shape == Shape{4, 6});
    for (std::int64_t i = 0; i < 6; ++i)
        for (std::int64_t j = 0; j < 4; ++j) CHECK(o({j, i}) == u({i}) * v({j}));
}

TEST_CASE("einsum numerics: 3-operand chain with mul/add sums early", "[einsum][numerics]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("A", Shape{4, 6}, Shape{2, 3}, DType::F64, from(ints(21)), at("A"));
    b.add_input("B", Shape{6, 4}, Shape{3, 2}, DType::F64, from(ints(22)), at("B"));
    b.add_input("C", Shape{4, 2}, Shape{2, 1}, DType::F64, from(ints(23)), at("C"));
    b.add_einsum("D", EinsumStep{"ij,jk,kl->il", {"A", "B", "C"}}, at("D"));
    Program p = b.finish();
    // mul distributes over add: B and C first (48 + 48 flops, not A and B's 96 + 32), and k is
    // summed right after that join.
    CHECK(node_ops(p) == Strings{"D.join1:join", "D.sum1:aggregate", "D.join2:join", "D:aggregate"});
    CHECK(p.node(*p.find("D.join1")).inputs == std::vector<NodeId>{*p.find("B"), *p.find("C")});
    const auto orders = einsum_orders(p);
    REQUIRE(orders.size() == 1);
    CHECK(orders[0].str() == "einsum D: order (ij,(jk,kl)) flops 96");
    runtime::ReferenceEvaluator ev(p);
    Dense d = assemble(ev.evaluate(*p.find("D")));
    Dense a = generated(Shape{4, 6}, ints(21)), bm = generated(Shape{6, 4}, ints(22)),
          c = generated(Shape{4, 2}, ints(23));
    REQUIRE(d.shape == Shape{4, 2});
    for (std::int64_t i = 0; i < 4; ++i)
        for (std::int64_t l = 0; l < 2; ++l) {
            double s = 0;
            for (std::int64_t j = 0; j < 6; ++j)
                for (std::int64_t k = 0; k < 4; ++k) s += a({i, j}) * bm({j, k}) * c({k, l});
            CHECK(d({i, l}) == s);
        }
}

TEST_CASE("einsum numerics: opt_einsum's 5-operand expression joins abcd first",
          "[einsum][numerics]") {
    // ea,fb,gc,hd,abcd->efgh: every order that starts with the matrices builds their outer
    // product; contracting abcd with one matrix at a time keeps every intermediate 4-D.
    ProgramBuilder b("p", DType::F64);
    const Shape m{3, 2}, m_tile{1, 1}, t{2, 2, 2, 2}, t_tile{1, 1, 1, 1};
    const std::vector<std::string> names{"E", "F", "G", "H"};
    for (std::size_t i = 0; i < names.size(); ++i)
        b.add_input(names[i], m, m_tile, DType::F64, from(ints(51 + i)), at(names[i]));
    b.add_input("T", t, t_tile, DType::F64, from(ints(55)), at("T"));
    b.add_einsum("Z", EinsumStep{"ea,fb,gc,hd,abcd->efgh", {"E", "F", "G", "H", "T"}}, at("Z"));
    Program p = b.finish();
    // 390 flops is the least over all 105 pairwise trees (a brute force in Python): abcd
    // joined with one matrix after another (48 + 72 + 108 + 162), in any of 24 ways.
    const auto orders = einsum_orders(p);
    REQUIRE(orders.size() == 1);
    CHECK(orders[0].flops == 390);
    // No outer product of two matrices, so no relation has more than 4 labels + one summed.
    for (const Node& n : p.nodes) CHECK(n.type.key_arity <= 5);
    runtime::ReferenceEvaluator ev(p);
    Dense z = assemble(ev.evaluate(*p.find("Z")));
    std::vector<Dense> mats;
    for (std::size_t i = 0; i < names.size(); ++i) mats.push_back(generated(m, ints(51 + i)));
    Dense tt = generated(t, ints(55));
    REQUIRE(z.shape == (Shape{3, 3, 3, 3}));
    for (std::int64_t e = 0; e < 3; ++e)
        for (std::int64_t f = 0; f < 3; ++f)
            for (std::int64_t g = 0; g < 3; ++g)
                for (std::int64_t h = 0; h < 3; ++h) {
                    double s = 0;
                    for (std::int64_t a = 0; a < 2; ++a)
                        for (std::int64_t bb = 0; bb < 2; ++bb)
                            for (std::int64_t c = 0; c < 2; ++c)
                                for (std::int64_t d = 0; d < 2; ++d)
                                    s += mats[0]({e, a}) * mats[1]({f, bb}) * mats[2]({g, c}) *
                                         mats[3]({h, d}) * tt({a, bb, c, d});
                    CHECK(z({e, f, g, h}) == s);
                }
}

TEST_CASE("einsum numerics: a non-distributive pair sums only after the last join",
          "[einsum][numerics]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("A", Shape{4, 6}, Shape{2, 3}, DType::F64, from(ints(31)), at("A"));
    b.add_input("B", Shape{6, 4}, Shape{3, 2}, DType::F64, from(ints(32)), at("B"));
    b.add_input("C", Shape{4, 2}, Shape{2, 1}, DType::F64, from(ints(33)), at("C"));
    EinsumStep step{"ij,jk,kl->il", {"A", "B", "C"}, "sub", "add"};
    b.add_einsum("D", step, at("D"));
    Program p = b.finish();
    CHECK(node_ops(p) == Strings{"D.join1:join", "D.join2:join", "D:aggregate"});
    CHECK(p.node(*p.find("D.join1")).type.key_arity == 3);  // (i, j, k): nothing summed yet
    // Joined as written: an order cannot sum early here, so it gains little (contraction_order).
    CHECK(einsum_orders(p).at(0).tree == "((ij,jk),kl)");
    runtime::ReferenceEvaluator ev(p);
    Dense d = assemble(ev.evaluate(*p.find("D")));
    Dense a = generated(Shape{4, 6}, ints(31)), bm = generated(Shape{6, 4}, ints(32)),
          c = generated(Shape{4, 2}, ints(33));
    REQUIRE(d.shape == Shape{4, 2});
    // out = agg_{j,k} join(join(a, b), c) = sum_{j,k} ((A_ij - B_jk) - C_kl).
    for (std::int64_t i = 0; i < 4; ++i)
        for (std::int64_t l = 0; l < 2; ++l) {
            double s = 0;
            for (std::int64_t j = 0; j < 6; ++j)
                for (std::int64_t k = 0; k < 4; ++k) s += (a({i, j}) - bm({j, k})) - c({k, l});
            CHECK(d({i, l}) == s);
        }
}

TEST_CASE("einsum numerics: dot product to a rank-0 output", "[einsum][numerics]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("x", Shape{12}, Shape{4}, DType::F64, from(ints(41)), at("x"));
    b.add_input("y", Shape{12}, Shape{4}, DType::F64, from(ints(42)), at("y"));
    b.add_einsum("d", EinsumStep{"i,i->", {"x", "y"}}, at("d"));
    b.add_einsum("s", EinsumStep{"i->", {"x"}}, at("s"));
    Program p = b.finish();
    const Node& dn = p.node(*p.find("d"));
    CHECK(dn.type.key_arity == 0);
    CHECK(dn.type.rank() == 0);
    CHECK(dn.keys.size() == 1);
    CHECK(dn.is_tensor());
    runtime::ReferenceEvaluator ev(p);
    const TensorRelation& r = ev.evaluate(*p.find("d"));
    REQUIRE(r.tuples.size() == 1);
    REQUIRE(r.tuples.begin()->first == Key{});
    Dense x = generated(Shape{12}, ints(41)), y = generated(Shape{12}, ints(42));
    double dot = 0, sum = 0;
    for (std::int64_t i = 0; i < 12; ++i) {
        dot += x({i}) * y({i});
        sum += x({i});
    }
    CHECK(r.tuples.begin()->second.elements() == 1);
    CHECK(r.tuples.begin()->second.get(0) == dot);
    const TensorRelation& rs = ev.evaluate(*p.find("s"));
    REQUIRE(rs.tuples.size() == 1);
    CHECK(rs.tuples.begin()->second.get(0) == sum);
}

TEST_CASE("einsum numerics: min-plus shortest paths on a small graph", "[einsum][numerics]") {
    const double inf = std::numeric_limits<double>::infinity();
    // 0->1 (1), 1->2 (2), 2->3 (3), 0->3 (10), 3->0 (1); 0 on the diagonal.
    const std::vector<double> w = {0,   1,   inf, 10,   //
                                   inf, 0,   2,   inf,  //
                                   inf, inf, 0,   3,    //
                                   1,   inf, inf, 0};
    const std::vector<double> expected = {0, 1, 3, 6,  //
                                          6, 0, 2, 5,  //
                                          4, 5, 0, 3,  //
                                          1, 2, 4, 0};
    TempDir dir;
    const std::string file = dir.file("g.h5");
    {
        storage::DatasetWriter wr(file, "/W", DType::F64, Shape{4, 4}, Shape{2, 2});
        for (std::int64_t bi = 0; bi < 2; ++bi)
            for (std::int64_t bj = 0; bj < 2; ++bj) {
                Tile t(DType::F64, Shape{2, 2});
                for (std::int64_t a = 0; a < 2; ++a)
                    for (std::int64_t c = 0; c < 2; ++c)
                        t.set(a * 2 + c, w[static_cast<std::size_t>((bi * 2 + a) * 4 + bj * 2 + c)]);
                wr.write_block(Shape{bi * 2, bj * 2}, t);
            }
        wr.close();
    }
    ProgramBuilder b("sp", DType::F64);
    InputSource src;
    src.file = file;
    src.dataset = "/W";
    b.add_input("W", Shape{4, 4}, Shape{2, 2}, DType::F64, src, at("W"));
    b.add_einsum("W2", EinsumStep{"ik,kj->ij", {"W", "W"}, "add", "min"}, at("W2"));
    b.add_einsum("W4", EinsumStep{"ik,kj->ij", {"W2", "W2"}, "add", "min"}, at("W4"));
    Program p = b.finish();
    CHECK(std::get<AggregateOp>(p.node(*p.find("W4")).op).kernel.name() == "min");
    runtime::ReferenceEvaluator ev(p);
    Dense d = assemble(ev.evaluate(*p.find("W4")));
    REQUIRE(d.shape == Shape{4, 4});
    for (std::size_t i = 0; i < 16; ++i) {
        INFO("element " << i);
        CHECK(d.v[i] == expected[i]);
    }
    // Two edges at most: 0 -> 2 costs 3, 0 -> 3 is the direct 10, 1 -> 0 unreachable yet.
    Dense d2 = assemble(ev.evaluate(*p.find("W2")));
    CHECK(d2({0, 2}) == 3);
    CHECK(d2({0, 3}) == 10);
    CHECK(d2({1, 0}) == inf);
}

TEST_CASE("einsum lowering: errors are located at the step's fields", "[einsum][errors]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("A", Shape{4, 6}, Shape{2, 3}, DType::F64, from(ints(1)), at("A"));
    b.add_input("B", Shape{6, 4}, Shape{2, 2}, DType::F64, from(ints(2)), at("B"));   // j tiled 3 x 2
    b.add_input("C", Shape{5, 4}, Shape{5, 2}, DType::F64, from(ints(3)), at("C"));   // extent 5
    b.add_input("G", Shape{6, 4}, Shape{3, 2}, DType::F64, from(ints(4)), at("G"));
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
