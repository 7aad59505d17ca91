// softmax and log_softmax steps: the einsums they lower to (softmax_lowering.hpp), their
// refusals, and their numbers under the ReferenceEvaluator against a direct computation.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "runtime/reference_evaluator.hpp"
#include "storage/generator.hpp"
#include "tra/program_builder.hpp"

using namespace tra;
using Strings = std::vector<std::string>;

namespace {

StepSource at(const std::string& step) {
    StepSource s;
    s.step = SourceLocation{"s.yaml", 4, 3, step};
    s.fields["softmax"] = SourceLocation{"s.yaml", 4, 20, step + ".softmax"};
    s.fields["log_softmax"] = SourceLocation{"s.yaml", 4, 20, step + ".log_softmax"};
    s.fields["dim"] = SourceLocation{"s.yaml", 4, 30, step + ".dim"};
    return s;
}

InputSource uniform(std::uint64_t seed, double lo, double hi) {
    InputSource s;
    s.generate = storage::GeneratorSpec{};
    s.generate->kind = storage::GeneratorSpec::Kind::Uniform;
    s.generate->lo = lo;
    s.generate->hi = hi;
    s.generate->seed = seed;
    return s;
}

std::vector<std::string> node_ops(const Program& p) {
    std::vector<std::string> ops;
    for (const Node& n : p.nodes)
        if (!std::holds_alternative<InputOp>(n.op))
            ops.push_back(n.name + ":" + operator_name(n.op));
    return ops;
}

// The error `f` throws, which must be one.
Error thrown(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e;
    }
    FAIL("no error");
    return Error("unreachable");
}

}  // namespace

TEST_CASE("softmax lowering: max, shift, exp, sum, then a divide", "[softmax]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("S", Shape{6, 12, 8}, Shape{2, 4, 4}, DType::F64, uniform(1, -1, 1), at("S"));
    b.add_softmax("P", "S", 1, false, at("P"));
    Program p = b.finish();
    CHECK(node_ops(p) == Strings{"P.max.tiles:transform", "P.max:aggregate", "P.shift:join",
                                 "P.exp:transform", "P.sum.tiles:transform", "P.sum:aggregate",
                                 "P:join"});
    const Node& max = p.node(*p.find("P.max"));
    CHECK(std::get<AggregateOp>(max.op).kernel.name() == "max");
    CHECK(std::get<AggregateOp>(max.op).by == KeyPositions{0, 2});
    CHECK(max.frontier == Frontier{3, 2});
    const auto& shift = std::get<JoinOp>(p.node(*p.find("P.shift")).op);
    CHECK(shift.kernel.params().spec == "abc,ac->abc");
    CHECK(shift.kernel.params().join_op == "sub");
    CHECK(shift.left_keys == KeyPositions{0, 2});
    CHECK(shift.right_keys == KeyPositions{0, 1});
    CHECK(std::get<TransformOp>(p.node(*p.find("P.exp")).op).kernel.name() == "exp");
    const Node& out = p.node(*p.find("P"));
    CHECK(std::get<JoinOp>(out.op).kernel.params().join_op == "div");
    CHECK(out.type.bound == Shape{2, 4, 4});
    CHECK(out.frontier == Frontier{3, 3, 2});
    CHECK(out.is_tensor());
}

TEST_CASE("log_softmax lowering: shift minus the log of the sum", "[softmax]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("S", Shape{6, 8}, Shape{3, 2}, DType::F64, uniform(1, -1, 1), at("S"));
    b.add_softmax("L", "S", 0, true, at("L"));
    Program p = b.finish();
    CHECK(node_ops(p) == Strings{"L.max.tiles:transform", "L.max:aggregate", "L.shift:join",
                                 "L.exp:transform", "L.sum.tiles:transform", "L.sum:aggregate",
                                 "L.log:transform", "L:join"});
    const Node& out = p.node(*p.find("L"));
    CHECK(std::get<JoinOp>(out.op).kernel.params().spec == "ab,b->ab");
    CHECK(std::get<JoinOp>(out.op).kernel.params().join_op == "sub");
    CHECK(p.node(out.inputs[0]).name == "L.shift");
    CHECK(p.node(out.inputs[1]).name == "L.log");
}

TEST_CASE("softmax refusals: dim out of range, an operand that is not a plain tensor",
          "[softmax][errors]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("S", Shape{6, 8}, Shape{3, 2}, DType::F64, uniform(1, -1, 1), at("S"));
    for (std::int64_t dim : {2, -1}) {
        const Error e = thrown([&] { b.add_softmax("P", "S", dim, false, at("P")); });
        CHECK(e.exit_code() == 2);
        CHECK(e.where().column == 30);
        CHECK_THAT(e.message(), Catch::Contains("dim " + std::to_string(dim) +
                                                " is out of range: S has 2 dimension(s) (dim 0 "
                                                "to 1)"));
    }
    b.add_filter("F", "S", "k0 == k1", at("F"));
    const Error holes = thrown([&] { b.add_softmax("P", "F", 0, true, at("P")); });
    CHECK(holes.where().column == 20);
    CHECK_THAT(holes.message(), Catch::Contains("log_softmax operand F must be a plain tensor"));
    CHECK_THAT(holes.message(), Catch::Contains("with holes"));
    const Error unknown = thrown([&] { b.add_softmax("P", "X", 0, false, at("P")); });
    CHECK_THAT(unknown.message(), Catch::Contains("unknown relation 'X'"));
    // A refused step adds nothing, so the name stays free.
    CHECK_FALSE(b.lookup_optional("P.max"));
    CHECK_FALSE(b.lookup_optional("P"));
}

TEST_CASE("softmax numerics: a vector cut into tiles, with elements exp overflows on",
          "[softmax][numerics]") {
    ProgramBuilder b("p", DType::F64);
    // Uniform in [700, 800]: exp(800) overflows a double, so only the shift by the max keeps
    // these finite.
    b.add_input("V", Shape{12}, Shape{4}, DType::F64, uniform(3, 700, 800), at("V"));
    b.add_softmax("P", "V", 0, false, at("P"));
    b.add_softmax("L", "V", 0, true, at("L"));
    Program p = b.finish();
    runtime::ReferenceEvaluator ev(p);
    const TensorRelation v = ev.evaluate(*p.find("V"));
    const TensorRelation sp = ev.evaluate(*p.find("P"));
    const TensorRelation lp = ev.evaluate(*p.find("L"));
    std::vector<double> x;
    for (const auto& [key, tile] : v.tuples)
        for (std::int64_t i = 0; i < 4; ++i) x.push_back(tile.get(i));
    double m = x[0];
    for (double e : x) m = std::max(m, e);
    double s = 0;
    for (double e : x) s += std::exp(e - m);
    REQUIRE(std::isinf(std::exp(m)));
    std::size_t i = 0;
    for (const auto& [key, tile] : sp.tuples)
        for (std::int64_t j = 0; j < 4; ++j, ++i)
            CHECK(tile.get(j) == Approx(std::exp(x[i] - m) / s).epsilon(1e-13));
    i = 0;
    for (const auto& [key, tile] : lp.tuples)
        for (std::int64_t j = 0; j < 4; ++j, ++i)
            CHECK(tile.get(j) == Approx(x[i] - m - std::log(s)).epsilon(1e-13));
    CHECK(i == 12);
}

TEST_CASE("softmax along a padded dimension: the padding is left out of the max and the sums",
          "[softmax][numerics][padding]") {
    ProgramBuilder b("p", DType::F64);
    // 10 elements in tiles of 4: the last tile holds 2 and 2 zeros of padding. Values in
    // [-800, -700]: a zero counted into the max would make every exp underflow to 0.
    InputSource source = uniform(5, -800, -700);
    source.padded = true;
    b.add_input("V", Shape{10}, Shape{4}, DType::F64, source, at("V"));
    b.add_softmax("P", "V", 0, false, at("P"), 10);
    b.add_softmax("L", "V", 0, true, at("L"), 10);
    b.add_softmax("U", "V", 0, false, at("U"), 12);  // the extent of the tiles: no padding
    Program p = b.finish();
    CHECK(node_ops(p) == Strings{"P.mask:transform",
                                 "P.max.tiles:transform",
                                 "P.max:aggregate",
                                 "P.shift:join",
                                 "P.exp:transform",
                                 "P.sum.tiles:transform",
                                 "P.sum:aggregate",
                                 "P:join",
                                 "L.mask:transform",
                                 "L.max.tiles:transform",
                                 "L.max:aggregate",
                                 "L.shift:join",
                                 "L.exp:transform",
                                 "L.sum.tiles:transform",
                                 "L.sum:aggregate",
                                 "L.log:transform",
                                 "L.offset:join",
                                 "L:join",
                                 "U.max.tiles:transform",
                                 "U.max:aggregate",
                                 "U.shift:join",
                                 "U.exp:transform",
                                 "U.sum.tiles:transform",
                                 "U.sum:aggregate",
                                 "U:join"});
    CHECK(std::get<TransformOp>(p.node(*p.find("P.mask")).op).kernel.str() ==
          "fill_padding(0:10, -inf)");
    runtime::ReferenceEvaluator ev(p);
    const TensorRelation v = ev.evaluate(*p.find("V"));
    std::vector<double> x(12);
    for (const auto& [key, tile] : v.tuples)
        for (std::int64_t j = 0; j < 4; ++j)
            x[static_cast<std::size_t>(key[0] * 4 + j)] = tile.get(j);
    REQUIRE(x[10] == 0.0);
    REQUIRE(x[11] == 0.0);
    const double m = *std::max_element(x.begin(), x.begin() + 10);
    double s = 0;
    for (std::size_t i = 0; i < 10; ++i) s += std::exp(x[i] - m);
    const TensorRelation sp = ev.evaluate(*p.find("P"));
    const TensorRelation lp = ev.evaluate(*p.find("L"));
    for (const auto& [key, tile] : sp.tuples)
        for (std::int64_t j = 0; j < 4; ++j) {
            const auto i = static_cast<std::size_t>(key[0] * 4 + j);
            INFO("element " << i);
            if (i < 10)
                CHECK(tile.get(j) == Approx(std::exp(x[i] - m) / s).epsilon(1e-13));
            else
                CHECK(tile.get(j) == 0.0);  // exp(-inf) / s
        }
    for (const auto& [key, tile] : lp.tuples)
        for (std::int64_t j = 0; j < 4; ++j) {
            const auto i = static_cast<std::size_t>(key[0] * 4 + j);
            INFO("element " << i);
            // x - (m + log s): within a few ulps of m, as x itself is known (backward stable),
            // though not to the relative precision of (x - m) - log s near the maximum.
            if (i < 10)
                CHECK(std::abs(tile.get(j) - (x[i] - m - std::log(s))) <= 8e-16 * -m);
            else
                CHECK(std::isfinite(tile.get(j)));  // 0 - (m + log s): finite, never -inf
        }
}
