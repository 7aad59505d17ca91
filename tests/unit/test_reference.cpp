// ReferenceEvaluator: every TRA operator against naive element loops over whole tensors, its key
// sets against the builder's inferred ones, and deterministic aggregation.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "runtime/reference_evaluator.hpp"
#include "storage/generator.hpp"
#include "tra/program_builder.hpp"

using namespace tra;
using kernels::KernelCall;
using runtime::ReferenceEvaluator;
using Kind = storage::GeneratorSpec::Kind;

namespace {

StepSource at(const std::string& step) {
    StepSource s;
    s.step = SourceLocation{"r.yaml", 2, 3, step};
    return s;
}

storage::GeneratorSpec spec(Kind kind, std::uint64_t seed, double lo = -4, double hi = 4) {
    storage::GeneratorSpec g;
    g.kind = kind;
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

// Element (r, c) of a generated 2-D tensor with `cols` columns.
double gen2(const storage::GeneratorSpec& g, std::int64_t cols, std::int64_t r, std::int64_t c) {
    return storage::generated_value(g, static_cast<std::uint64_t>(r * cols + c));
}

// Element (a, b) of a 2-D tile.
double el(const Tile& t, std::int64_t a, std::int64_t b) {
    return t.get(a * t.shape()[1] + b);
}

bool same_bits(const Tile& x, const Tile& y) {
    return x.dtype() == y.dtype() && x.shape() == y.shape() &&
           std::memcmp(x.raw(), y.raw(), x.bytes()) == 0;
}

// A: [8, 6] in [4, 3] tiles (frontier [2, 2]); B: [6, 10] in [3, 5] (frontier [2, 2]).
const auto GA = spec(Kind::Integers, 1);
const auto GB = spec(Kind::Integers, 2);

struct Fixture {
    ProgramBuilder b{"ref", DType::F64};
    Fixture() {
        b.add_input("A", Shape{8, 6}, Shape{4, 3}, DType::F64, from(GA), at("A"));
        b.add_input("B", Shape{6, 10}, Shape{3, 5}, DType::F64, from(GB), at("B"));
    }
};

}  // namespace

TEST_CASE("reference: input tiles are the generated blocks", "[reference][input]") {
    Fixture f;
    Program p = f.b.finish();
    ReferenceEvaluator ev(p);
    const TensorRelation& a = ev.evaluate(0);
    REQUIRE(a.tuples.size() == 4);
    for (const auto& [k, t] : a.tuples) {
        REQUIRE(t.shape() == Shape{4, 3});
        for (std::int64_t r = 0; r < 4; ++r)
            for (std::int64_t c = 0; c < 3; ++c)
                CHECK(el(t, r, c) == gen2(GA, 6, k[0] * 4 + r, k[1] * 3 + c));
    }
}

TEST_CASE("reference: join with matmul, then aggregate with a permuted by",
          "[reference][join][aggregate]") {
    Fixture f;
    f.b.add_join("AB", "A", "B", {1}, {0}, KernelCall("matmul"), at("AB"));
    f.b.add_aggregate("CT", "AB", {2, 0}, KernelCall("add"), at("CT"));  // key (j, i)
    Program p = f.b.finish();
    ReferenceEvaluator ev(p);
    const TensorRelation& ab = ev.evaluate(2);
    REQUIRE(ab.tuples.size() == 8);
    for (const auto& [k, t] : ab.tuples) {  // k = (i, kk, j): A(i, kk) x B(kk, j)
        for (std::int64_t r = 0; r < 4; ++r)
            for (std::int64_t c = 0; c < 5; ++c) {
                double s = 0;
                for (std::int64_t m = 0; m < 3; ++m)
                    s += gen2(GA, 6, k[0] * 4 + r, k[1] * 3 + m) *
                         gen2(GB, 10, k[1] * 3 + m, k[2] * 5 + c);
                CHECK(el(t, r, c) == s);
            }
    }
    const TensorRelation& ct = ev.evaluate(3);
    CHECK(ct.type.key_arity == 2);
    REQUIRE(ct.tuples.size() == 4);
    for (const auto& [k, t] : ct.tuples) {  // k = (j, i): block (i, j) of A B
        for (std::int64_t r = 0; r < 4; ++r)
            for (std::int64_t c = 0; c < 5; ++c) {
                double s = 0;
                for (std::int64_t m = 0; m < 6; ++m)
                    s += gen2(GA, 6, k[1] * 4 + r, m) * gen2(GB, 10, m, k[0] * 5 + c);
                CHECK(el(t, r, c) == s);
            }
    }
}

TEST_CASE("reference: join on two key positions in crossed order", "[reference][join]") {
    ProgramBuilder b("ref", DType::F64);
    const auto GS = spec(Kind::Integers, 5), GT = spec(Kind::Integers, 6);
    b.add_input("S", Shape{6, 8}, Shape{2, 2}, DType::F64, from(GS), at("S"));  // [3, 4]
    b.add_input("T", Shape{8, 6}, Shape{2, 2}, DType::F64, from(GT), at("T"));  // [4, 3]
    b.add_join("J", "S", "T", {0, 1}, {1, 0}, KernelCall("sub"), at("J"));
    Program p = b.finish();
    ReferenceEvaluator ev(p);
    const TensorRelation& j = ev.evaluate(2);
    REQUIRE(j.tuples.size() == 12);
    for (const auto& [k, t] : j.tuples) {
        REQUIRE(k.size() == 2);
        // Tile S(k0, k1) minus tile T(k1, k0), element by element (tiles are not transposed).
        for (std::int64_t r = 0; r < 2; ++r)
            for (std::int64_t c = 0; c < 2; ++c)
                CHECK(el(t, r, c) == gen2(GS, 8, k[0] * 2 + r, k[1] * 2 + c) -
                                         gen2(GT, 6, k[1] * 2 + r, k[0] * 2 + c));
    }
}

TEST_CASE("reference: aggregate with by = [] folds every tuple", "[reference][aggregate]") {
    Fixture f;
    f.b.add_aggregate("S", "A", {}, KernelCall("add"), at("S"));
    f.b.add_aggregate("M", "A", {}, KernelCall("max"), at("M"));
    f.b.add_aggregate("R", "A", {1}, KernelCall("min"), at("R"));
    Program p = f.b.finish();
    ReferenceEvaluator ev(p);
    const TensorRelation& s = ev.evaluate(2);
    const TensorRelation& m = ev.evaluate(3);
    const TensorRelation& rr = ev.evaluate(4);
    REQUIRE(s.tuples.size() == 1);
    REQUIRE(s.tuples.count(Key{}) == 1);
    REQUIRE(rr.tuples.size() == 2);
    for (std::int64_t r = 0; r < 4; ++r)
        for (std::int64_t c = 0; c < 3; ++c) {
            double sum = 0, mx = -1e300;
            for (std::int64_t i = 0; i < 2; ++i)
                for (std::int64_t j = 0; j < 2; ++j) {
                    sum += gen2(GA, 6, i * 4 + r, j * 3 + c);
                    mx = std::max(mx, gen2(GA, 6, i * 4 + r, j * 3 + c));
                }
            CHECK(el(s.tuples.at(Key{}), r, c) == sum);
            CHECK(el(m.tuples.at(Key{}), r, c) == mx);
            for (std::int64_t j = 0; j < 2; ++j)
                CHECK(el(rr.tuples.at(Key{j}), r, c) ==
                      std::min(gen2(GA, 6, r, j * 3 + c), gen2(GA, 6, 4 + r, j * 3 + c)));
        }
}

TEST_CASE("reference: rekey moves tiles, filter keeps them unchanged",
          "[reference][rekey][filter]") {
    Fixture f;
    f.b.add_rekey("T", "B", "(i, j) -> (j, i + 1)", at("T"));
    f.b.add_filter("D", "A", "k0 == k1", at("D"));
    Program p = f.b.finish();
    ReferenceEvaluator ev(p);
    const TensorRelation& b = ev.evaluate(1);
    const TensorRelation& t = ev.evaluate(2);
    REQUIRE(t.tuples.size() == 4);
    for (const auto& [k, tile] : b.tuples) CHECK(same_bits(t.tuples.at(Key{k[1], k[0] + 1}), tile));
    const TensorRelation& a = ev.evaluate(0);
    const TensorRelation& d = ev.evaluate(3);
    CHECK(d.keys() == p.node(3).keys);
    REQUIRE(d.tuples.size() == 2);
    for (const auto& [k, tile] : d.tuples) {
        CHECK(k[0] == k[1]);
        CHECK(same_bits(tile, a.tuples.at(k)));
    }
}

TEST_CASE("reference: transforms against naive loops", "[reference][transform]") {
    ProgramBuilder b("ref", DType::F64);
    const auto GU = spec(Kind::Uniform, 9, -2, 2);
    b.add_input("W", Shape{4, 6}, Shape{2, 6}, DType::F64, from(GU), at("W"));  // whole rows
    b.add_transform("S", "W", KernelCall("softmax_rows"), at("S"));
    kernels::KernelParams half;
    half.factor = 0.5;
    b.add_transform("H", "W", KernelCall("scale", half), at("H"));
    b.add_transform("T", "W", KernelCall("transpose"), at("T"));
    b.add_transform("M", "W", KernelCall("argmin"), at("M"));
    b.add_aggregate("MM", "M", {}, KernelCall("min_index"), at("MM"));
    Program p = b.finish();
    ReferenceEvaluator ev(p);
    const TensorRelation& s = ev.evaluate(1);
    const TensorRelation& h = ev.evaluate(2);
    const TensorRelation& t = ev.evaluate(3);
    REQUIRE(s.tuples.size() == 2);
    for (std::int64_t i = 0; i < 2; ++i)
        for (std::int64_t r = 0; r < 2; ++r) {
            double mx = -1e300, z = 0;
            for (std::int64_t c = 0; c < 6; ++c) mx = std::max(mx, gen2(GU, 6, i * 2 + r, c));
            for (std::int64_t c = 0; c < 6; ++c) z += std::exp(gen2(GU, 6, i * 2 + r, c) - mx);
            for (std::int64_t c = 0; c < 6; ++c) {
                const double x = gen2(GU, 6, i * 2 + r, c);
                CHECK(el(s.tuples.at(Key{i, 0}), r, c) ==
                      Approx(std::exp(x - mx) / z).epsilon(1e-14));
                CHECK(el(h.tuples.at(Key{i, 0}), r, c) == x * 0.5);
                CHECK(el(t.tuples.at(Key{i, 0}), c, r) == x);
            }
        }
    // argmin then min_index: the global argmin of the whole tensor.
    double best = 1e300;
    std::int64_t where = -1;
    for (std::int64_t e = 0; e < 24; ++e)
        if (storage::generated_value(GU, e) < best) {
            best = storage::generated_value(GU, e);
            where = e;
        }
    const TensorRelation& mm = ev.evaluate(5);
    REQUIRE(mm.tuples.size() == 1);
    CHECK(mm.tuples.at(Key{}).get(0) == best);
    CHECK(mm.tuples.at(Key{}).get(1) == static_cast<double>(where));
}

TEST_CASE("reference: tile cuts pieces, concat puts them back bit for bit",
          "[reference][tile][concat]") {
    Fixture f;
    f.b.add_tile("H", "A", 0, 1, at("H"));  // 4 pieces of [1, 3]
    f.b.add_concat("I", "H", 2, 0, at("I"));
    f.b.add_tile("V", "B", 1, 1, at("V"));  // 5 pieces of [3, 1]
    f.b.add_concat("U", "V", 2, 1, at("U"));
    f.b.add_concat("X", "V", 2, 0, at("X"));  // stacked vertically: [15, 1]
    Program p = f.b.finish();
    ReferenceEvaluator ev(p);
    const TensorRelation& a = ev.evaluate(0);
    const TensorRelation& h = ev.evaluate(2);
    REQUIRE(h.tuples.size() == 16);
    for (const auto& [k, t] : h.tuples) {
        REQUIRE(t.shape() == Shape{1, 3});
        for (std::int64_t c = 0; c < 3; ++c)
            CHECK(t.get(c) == gen2(GA, 6, k[0] * 4 + k[2], k[1] * 3 + c));
    }
    const TensorRelation& i = ev.evaluate(3);
    REQUIRE(i.tuples.size() == a.tuples.size());
    for (const auto& [k, t] : a.tuples) CHECK(same_bits(i.tuples.at(k), t));
    const TensorRelation& b = ev.evaluate(1);
    const TensorRelation& u = ev.evaluate(5);
    for (const auto& [k, t] : b.tuples) CHECK(same_bits(u.tuples.at(k), t));
    const TensorRelation& x = ev.evaluate(6);
    for (const auto& [k, t] : x.tuples) {
        REQUIRE(t.shape() == Shape{15, 1});
        for (std::int64_t piece = 0; piece < 5; ++piece)
            for (std::int64_t r = 0; r < 3; ++r)
                CHECK(t.get(piece * 3 + r) == gen2(GB, 10, k[0] * 3 + r, k[1] * 5 + piece));
    }
}

TEST_CASE("reference: evaluated key sets, tile shapes and dtypes equal the inferred ones",
          "[reference][integrity]") {
    ProgramBuilder b("ref", DType::F32);
    const auto G = spec(Kind::Uniform, 3, -1, 1);
    b.add_input("A", Shape{12, 8}, Shape{3, 2}, DType::F32, from(G), at("A"));  // [4, 4]
    b.add_input("B", Shape{8, 6}, Shape{2, 3}, DType::F32, from(G), at("B"));   // [4, 2]
    b.add_filter("L", "A", "k0 <= k1", at("L"));
    b.add_join("J", "L", "B", {1}, {0}, KernelCall("matmul"), at("J"));
    b.add_aggregate("G", "J", {2, 0}, KernelCall("add"), at("G"));
    b.add_rekey("R", "G", "(a, b) -> (b + 1, a * 2)", at("R"));
    b.add_filter("F", "R", "(a, b) -> (a + b) % 2 == 1", at("F"));
    b.add_transform("T", "F", KernelCall("relu"), at("T"));
    b.add_tile("H", "T", 1, 1, at("H"));
    b.add_concat("C", "H", 2, 1, at("C"));
    b.add_transform("AM", "A", KernelCall("argmin"), at("AM"));
    b.add_aggregate("MI", "AM", {1}, KernelCall("min_index"), at("MI"));
    b.add_einsum("E", EinsumStep{"ik,kj->ji", {"A", "B"}}, at("E"));
    Program p = b.finish();
    ReferenceEvaluator ev(p);
    for (NodeId id = 0; id < p.nodes.size(); ++id) {
        const Node& n = p.node(id);
        INFO("node " << n.name);
        const TensorRelation& r = ev.evaluate(id);
        CHECK(r.type == n.type);
        CHECK(r.keys() == n.keys);
        CHECK(r.keys().frontier(n.type.key_arity) == n.frontier);
        for (const auto& [k, t] : r.tuples) {
            CHECK(t.shape() == n.type.bound);
            CHECK(t.dtype() == DType::F32);
        }
    }
}

TEST_CASE("reference: aggregation is deterministic, bit for bit", "[reference][aggregate]") {
    auto build = [] {
        ProgramBuilder b("ref", DType::F64);
        const auto G = spec(Kind::Uniform, 77, -1, 1);
        b.add_input("A", Shape{64, 64}, Shape{8, 8}, DType::F64, from(G), at("A"));
        b.add_input("B", Shape{64, 16}, Shape{8, 16}, DType::F64,
                    from(spec(Kind::Uniform, 78, -1, 1)), at("B"));
        b.add_join("J", "A", "B", {1}, {0}, KernelCall("matmul"), at("J"));
        b.add_aggregate("C", "J", {0, 2}, KernelCall("add"), at("C"));
        b.add_aggregate("S", "A", {}, KernelCall("add"), at("S"));
        b.add_output("C", "unused.h5", "/C", at("outputs.C"));
        return b.finish();
    };
    Program p1 = build(), p2 = build();
    ReferenceEvaluator e1(p1), e2(p2), e3(p1);
    for (NodeId id : {NodeId{3}, NodeId{4}}) {
        const TensorRelation& x = e1.evaluate(id);
        const TensorRelation& y = e2.evaluate(id);
        const TensorRelation& z = e3.evaluate(id);
        REQUIRE(x.tuples.size() == y.tuples.size());
        for (const auto& [k, t] : x.tuples) {
            CHECK(same_bits(t, y.tuples.at(k)));
            CHECK(same_bits(t, z.tuples.at(k)));
        }
    }
}

TEST_CASE("reference: memoized results are returned by reference", "[reference]") {
    Fixture f;
    f.b.add_transform("R", "A", KernelCall("relu"), at("R"));
    Program p = f.b.finish();
    ReferenceEvaluator ev(p);
    const TensorRelation* first = &ev.evaluate(2);
    CHECK(&ev.evaluate(2) == first);
    for (const auto& [k, t] : first->tuples)
        for (std::int64_t e = 0; e < t.elements(); ++e) CHECK(t.get(e) >= 0);
}
