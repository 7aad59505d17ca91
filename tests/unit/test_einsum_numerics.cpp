// Einsum numbers: the ReferenceEvaluator's results of lowered einsums (matmul and its
// transpose, batched and outer products, chains that sum early or only at the end, a 5-operand
// expression, dot products to rank 0, min-plus shortest paths) against naive loops over whole
// tensors. test_einsum.cpp tests parsing and the shape of the lowering.
#include <catch2/catch.hpp>
#include <limits>
#include <string>
#include <vector>

#include "einsum_fixtures.hpp"
#include "runtime/reference_evaluator.hpp"
#include "storage/generator.hpp"
#include "storage/tensor_file.hpp"
#include "temp_dir.hpp"
#include "tra/einsum_lowering.hpp"
#include "tra/einsum_orders.hpp"
#include "tra/program_builder.hpp"

using namespace tra;

namespace {

struct TempDir : testing::TempDir {
    TempDir() : testing::TempDir("einsum") {}
};

using tra::testing::einsum_at;
using tra::testing::small_integers;
using tra::testing::small_integers_input;

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

using tra::testing::node_ops;

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("einsum lowering: elementwise product is a single join on both positions",
          "[einsum][lowering]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("A", Shape{6, 4}, Shape{3, 2}, DType::F64, small_integers_input(1), einsum_at("A"));
    b.add_input("B", Shape{6, 4}, Shape{3, 2}, DType::F64, small_integers_input(2), einsum_at("B"));
    b.add_einsum("H", EinsumStep{"ij,ij->ij", {"A", "B"}}, einsum_at("H"));
    Program p = b.finish();
    CHECK(node_ops(p) == Strings{"H:join"});
    const auto& op = std::get<JoinOp>(p.node(*p.find("H")).op);
    CHECK(op.left_keys == KeyPositions{0, 1});
    CHECK(op.right_keys == KeyPositions{0, 1});

    runtime::ReferenceEvaluator ev(p);
    Dense h = assemble(ev.evaluate(*p.find("H")));
    Dense a = generated(Shape{6, 4}, small_integers(1)),
          bb = generated(Shape{6, 4}, small_integers(2));
    for (std::size_t i = 0; i < h.v.size(); ++i) CHECK(h.v[i] == a.v[i] * bb.v[i]);
}

TEST_CASE("einsum numerics: matmul against naive loops", "[einsum][numerics]") {
    for (DType dt : {DType::F64, DType::F32}) {
        ProgramBuilder b("p", DType::F64);
        b.add_input("A", Shape{6, 8}, Shape{3, 2}, dt, small_integers_input(11), einsum_at("A"));
        b.add_input("B", Shape{8, 10}, Shape{2, 5}, dt, small_integers_input(12), einsum_at("B"));
        b.add_einsum("C", EinsumStep{"ik,kj->ij", {"A", "B"}}, einsum_at("C"));
        b.add_einsum("CT", EinsumStep{"ik,kj->ji", {"A", "B"}}, einsum_at("CT"));
        Program p = b.finish();
        runtime::ReferenceEvaluator ev(p);
        Dense c = assemble(ev.evaluate(*p.find("C")));
        Dense ct = assemble(ev.evaluate(*p.find("CT")));
        REQUIRE(c.shape == Shape{6, 10});
        REQUIRE(ct.shape == Shape{10, 6});
        Dense a = generated(Shape{6, 8}, small_integers(11)),
              bm = generated(Shape{8, 10}, small_integers(12));
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
    b.add_input("X", Shape{4, 6, 4}, Shape{2, 3, 2}, DType::F64, small_integers_input(3),
                einsum_at("X"));
    b.add_input("Y", Shape{4, 4, 6}, Shape{2, 2, 3}, DType::F64, small_integers_input(4),
                einsum_at("Y"));
    b.add_input("u", Shape{6}, Shape{3}, DType::F64, small_integers_input(5), einsum_at("u"));
    b.add_input("v", Shape{4}, Shape{2}, DType::F64, small_integers_input(6), einsum_at("v"));
    b.add_einsum("Z", EinsumStep{"bij,bjk->bik", {"X", "Y"}}, einsum_at("Z"));
    b.add_einsum("O", EinsumStep{"i,j->ji", {"u", "v"}}, einsum_at("O"));
    Program p = b.finish();
    runtime::ReferenceEvaluator ev(p);
    Dense z = assemble(ev.evaluate(*p.find("Z")));
    Dense o = assemble(ev.evaluate(*p.find("O")));
    Dense x = generated(Shape{4, 6, 4}, small_integers(3)),
          y = generated(Shape{4, 4, 6}, small_integers(4));
    Dense u = generated(Shape{6}, small_integers(5)), v = generated(Shape{4}, small_integers(6));
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
    b.add_input("A", Shape{4, 6}, Shape{2, 3}, DType::F64, small_integers_input(21),
                einsum_at("A"));
    b.add_input("B", Shape{6, 4}, Shape{3, 2}, DType::F64, small_integers_input(22),
                einsum_at("B"));
    b.add_input("C", Shape{4, 2}, Shape{2, 1}, DType::F64, small_integers_input(23),
                einsum_at("C"));
    b.add_einsum("D", EinsumStep{"ij,jk,kl->il", {"A", "B", "C"}}, einsum_at("D"));
    Program p = b.finish();
    // mul distributes over add: B and C first (48 + 48 flops, not A and B's 96 + 32), and k is
    // summed right after that join.
    CHECK(node_ops(p) ==
          Strings{"D.join1:join", "D.sum1:aggregate", "D.join2:join", "D:aggregate"});
    CHECK(p.node(*p.find("D.join1")).inputs == std::vector<NodeId>{*p.find("B"), *p.find("C")});
    const auto orders = einsum_orders(p);
    REQUIRE(orders.size() == 1);
    CHECK(orders[0].str() == "einsum D: order (ij,(jk,kl)) flops 96");
    runtime::ReferenceEvaluator ev(p);
    Dense d = assemble(ev.evaluate(*p.find("D")));
    Dense a = generated(Shape{4, 6}, small_integers(21)),
          bm = generated(Shape{6, 4}, small_integers(22)),
          c = generated(Shape{4, 2}, small_integers(23));
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
        b.add_input(names[i], m, m_tile, DType::F64, small_integers_input(51 + i),
                    einsum_at(names[i]));
    b.add_input("T", t, t_tile, DType::F64, small_integers_input(55), einsum_at("T"));
    b.add_einsum("Z", EinsumStep{"ea,fb,gc,hd,abcd->efgh", {"E", "F", "G", "H", "T"}},
                 einsum_at("Z"));
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
    for (std::size_t i = 0; i < names.size(); ++i)
        mats.push_back(generated(m, small_integers(51 + i)));
    Dense tt = generated(t, small_integers(55));
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
    b.add_input("A", Shape{4, 6}, Shape{2, 3}, DType::F64, small_integers_input(31),
                einsum_at("A"));
    b.add_input("B", Shape{6, 4}, Shape{3, 2}, DType::F64, small_integers_input(32),
                einsum_at("B"));
    b.add_input("C", Shape{4, 2}, Shape{2, 1}, DType::F64, small_integers_input(33),
                einsum_at("C"));
    EinsumStep step{"ij,jk,kl->il", {"A", "B", "C"}, "sub", "add"};
    b.add_einsum("D", step, einsum_at("D"));
    Program p = b.finish();
    CHECK(node_ops(p) == Strings{"D.join1:join", "D.join2:join", "D:aggregate"});
    CHECK(p.node(*p.find("D.join1")).type.key_arity == 3);  // (i, j, k): nothing summed yet
    // Joined as written: an order cannot sum early here, so it gains little (contraction_order).
    CHECK(einsum_orders(p).at(0).tree == "((ij,jk),kl)");
    runtime::ReferenceEvaluator ev(p);
    Dense d = assemble(ev.evaluate(*p.find("D")));
    Dense a = generated(Shape{4, 6}, small_integers(31)),
          bm = generated(Shape{6, 4}, small_integers(32)),
          c = generated(Shape{4, 2}, small_integers(33));
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
    b.add_input("x", Shape{12}, Shape{4}, DType::F64, small_integers_input(41), einsum_at("x"));
    b.add_input("y", Shape{12}, Shape{4}, DType::F64, small_integers_input(42), einsum_at("y"));
    b.add_einsum("d", EinsumStep{"i,i->", {"x", "y"}}, einsum_at("d"));
    b.add_einsum("s", EinsumStep{"i->", {"x"}}, einsum_at("s"));
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
    Dense x = generated(Shape{12}, small_integers(41)),
          y = generated(Shape{12}, small_integers(42));
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
                        t.set(a * 2 + c,
                              w[static_cast<std::size_t>((bi * 2 + a) * 4 + bj * 2 + c)]);
                wr.write_block(Shape{bi * 2, bj * 2}, t);
            }
        wr.close();
    }
    ProgramBuilder b("sp", DType::F64);
    InputSource src;
    src.file = file;
    src.dataset = "/W";
    b.add_input("W", Shape{4, 4}, Shape{2, 2}, DType::F64, src, einsum_at("W"));
    b.add_einsum("W2", EinsumStep{"ik,kj->ij", {"W", "W"}, "add", "min"}, einsum_at("W2"));
    b.add_einsum("W4", EinsumStep{"ik,kj->ij", {"W2", "W2"}, "add", "min"}, einsum_at("W4"));
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
