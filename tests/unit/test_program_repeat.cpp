// Loops (Program::repeat, docs/workflow-format.md "Loops: `repeat`"): what the builder accepts
// and refuses for `repeat:` and `every:`, which nodes finish() marks needed, and the reference
// evaluator's iterations (next_iteration, evaluate_outputs) against values worked out by hand.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "runtime/reference_evaluator.hpp"
#include "storage/generator.hpp"
#include "tra/program_builder.hpp"
#include "workflow/workflow_loader.hpp"

using namespace tra;
using kernels::KernelCall;
using kernels::KernelParams;
using runtime::ReferenceEvaluator;
using Kind = storage::GeneratorSpec::Kind;
using CarryText = ProgramBuilder::CarryText;

namespace {

StepSource at(const std::string& step) {
    StepSource s;
    s.step = SourceLocation{"loop.yaml", 3, 5, step};
    return s;
}

// An output whose `every:` field was written at loop.yaml:20:30.
StepSource output_at(const std::string& name) {
    StepSource s = at("outputs." + name);
    s.fields["every"] = SourceLocation{"loop.yaml", 20, 30, "outputs." + name + ".every"};
    return s;
}

// Where a carry entry INPUT: STEP was written.
SourceLocation carry_at(const std::string& input) {
    return SourceLocation{"loop.yaml", 12, 32, "repeat.carry." + input};
}

const SourceLocation kTimesAt{"loop.yaml", 12, 17, "repeat.times"};

InputSource generated(Kind kind, double lo, double hi) {
    InputSource s;
    storage::GeneratorSpec g;
    g.kind = kind;
    g.lo = lo;
    g.hi = hi;
    s.generate = g;
    return s;
}

KernelCall scale(double factor) {
    KernelParams p;
    p.factor = factor;
    return KernelCall("scale", p);
}

// x, w: [4, 4] in [2, 2] tiles (frontier [2, 2]); x holds 1, 2, ..., 16 (arange), w zeros.
// c: [4, 2] in [2, 2] tiles (the same type as x, frontier [2, 1]). u: [4, 4] in [1, 4] tiles.
// x32: x in f32. Steps: y = 2 x, f = y's diagonal tiles (holes), g = relu(u), s = relu(x32),
// z = x + w.
struct Loop {
    ProgramBuilder b{"loop", DType::F64};
    Loop() {
        b.add_input("x", Shape{4, 4}, Shape{2, 2}, DType::F64, generated(Kind::Arange, 1, 1),
                    at("inputs.x"));
        b.add_input("w", Shape{4, 4}, Shape{2, 2}, DType::F64, generated(Kind::Constant, 0, 0),
                    at("inputs.w"));
        b.add_input("c", Shape{4, 2}, Shape{2, 2}, DType::F64, generated(Kind::Constant, 1, 0),
                    at("inputs.c"));
        b.add_input("u", Shape{4, 4}, Shape{1, 4}, DType::F64, generated(Kind::Constant, 1, 0),
                    at("inputs.u"));
        b.add_input("x32", Shape{4, 4}, Shape{2, 2}, DType::F32, generated(Kind::Arange, 1, 1),
                    at("inputs.x32"));
        b.add_transform("y", "x", scale(2), at("program[0].y"));
        b.add_filter("f", "y", "k0 == k1", at("program[1].f"));
        b.add_transform("g", "u", KernelCall("relu"), at("program[2].g"));
        b.add_transform("s", "x32", KernelCall("relu"), at("program[3].s"));
        b.add_join("z", "x", "w", {0, 1}, {0, 1}, KernelCall("add"), at("program[4].z"));
    }
    NodeId id(const std::string& name) const { return *b.lookup_optional(name); }

    // The problem try_set_repeat(times, {input: step}) reports; the repeat is then not set.
    Error refused(std::int64_t times, const std::string& input, const std::string& step) {
        const auto problem =
            b.try_set_repeat(times, {CarryText{input, step, carry_at(input)}}, kTimesAt);
        REQUIRE(problem.has_value());
        return *problem;
    }
};

// x0(r, c): element (r, c) of x as generated, worked out by hand: arange 1, 2, ... row-major.
double x0(std::int64_t r, std::int64_t c) {
    return 1.0 + static_cast<double>(r * 4 + c);
}

// Every element of the [4, 4] relation `t` (tiles [2, 2]) equals factor * x0.
void check_times_x0(const TensorRelation& t, double factor) {
    INFO("factor " << factor);
    REQUIRE(t.tuples.size() == 4);
    for (const auto& [k, tile] : t.tuples)
        for (std::int64_t a = 0; a < 2; ++a)
            for (std::int64_t bb = 0; bb < 2; ++bb)
                CHECK(tile.get(a * 2 + bb) == factor * x0(k[0] * 2 + a, k[1] * 2 + bb));
}

}  // namespace

TEST_CASE("repeat: a carry from an input to a step of its type and tiles is accepted",
          "[repeat][builder]") {
    Loop l;
    REQUIRE_FALSE(l.b.try_set_repeat(3, {CarryText{"x", "y", carry_at("x")}}, kTimesAt));
    const Program p = l.b.finish();
    REQUIRE(p.repeat.has_value());
    CHECK(p.repeat->times == 3);
    CHECK(p.repeat->where.str() == kTimesAt.str());
    REQUIRE(p.repeat->carry.size() == 1);
    CHECK(p.repeat->carry[0].input == l.id("x"));
    CHECK(p.repeat->carry[0].step == l.id("y"));
    CHECK(p.repeat->carry[0].where.str() == carry_at("x").str());
    REQUIRE(p.repeat->carried(l.id("x")) != nullptr);
    CHECK(p.repeat->carried(l.id("x"))->step == l.id("y"));
    CHECK(p.repeat->carried(l.id("w")) == nullptr);
}

TEST_CASE("repeat: finish() marks carried steps and what they read needed, nothing else",
          "[repeat][builder]") {
    Loop l;
    REQUIRE_FALSE(l.b.try_set_repeat(2, {CarryText{"x", "y", carry_at("x")}}, kTimesAt));
    const Program p = l.b.finish();  // no outputs at all: only the carry makes y needed
    CHECK(p.outputs.empty());
    CHECK(p.node(l.id("y")).needed);
    CHECK(p.node(l.id("x")).needed);
    for (const char* other : {"w", "c", "u", "x32", "f", "g", "s", "z"}) {
        INFO(other);
        CHECK_FALSE(p.node(l.id(other)).needed);
    }
}

TEST_CASE("repeat: no carry at all is a loop of identical iterations", "[repeat][builder]") {
    Loop l;
    REQUIRE_FALSE(l.b.try_set_repeat(4, {}, kTimesAt));
    const Program p = l.b.finish();
    REQUIRE(p.repeat.has_value());
    CHECK(p.repeat->times == 4);
    CHECK(p.repeat->carry.empty());
}

TEST_CASE("repeat: times below 1 is refused", "[repeat][builder][errors]") {
    for (std::int64_t times : {0, -1}) {
        Loop l;
        const Error e = l.refused(times, "x", "y");
        CHECK(e.where().str() == "loop.yaml:12:17: repeat.times");
        CHECK(e.message() == "repeat needs times of at least 1");
        CHECK(e.exit_code() == 2);
        CHECK_FALSE(l.b.finish().repeat.has_value());
    }
}

TEST_CASE("repeat: a carry must go from an input to a known step of its type and tiles",
          "[repeat][builder][errors]") {
    struct Case {
        const char *input, *step, *says;
    };
    const std::vector<Case> cases = {
        // From a step, not an input.
        {"y", "f",
         "carry: 'y' is a step, not an input; only an input can take a new value "
         "between iterations"},
        // From or to a name that is neither.
        {"q", "y", "unknown relation 'q'"},
        {"x", "nope", "unknown relation 'nope'"},
        // To the input itself.
        {"x", "x", "carry: x: x keeps the input as it is; drop the entry"},
        // Another tiling (bound [1, 4]) and another dtype.
        {"x", "g",
         "carry: g is R^(2,2,[1, 4]) f64 but input x is R^(2,2,[2, 2]) f64; a carried "
         "step must have the input's type and tiling"},
        {"x", "s", "carry: s is R^(2,2,[2, 2]) f32 but input x is R^(2,2,[2, 2]) f64"},
        // The same type, other tiles: holes (2 of 4) and a smaller frontier (c is an input).
        {"x", "f",
         "carry: f has 2 tiles below frontier [2, 2] but input x has 4 below [2, 2]; a "
         "carried step must have the input's tiles"},
        {"x", "c", "carry: c has 2 tiles below frontier [2, 1] but input x has 4 below [2, 2]"},
    };
    for (const Case& c : cases) {
        INFO(c.input << ": " << c.step);
        Loop l;
        const Error e = l.refused(3, c.input, c.step);
        CHECK(e.where().str() == carry_at(c.input).str());
        CHECK_THAT(e.message(), Catch::StartsWith(c.says));
        CHECK(e.exit_code() == 2);
        CHECK_FALSE(l.b.finish().repeat.has_value());
    }
}

TEST_CASE("repeat: one bad carry refuses the whole repeat", "[repeat][builder][errors]") {
    Loop l;
    const auto problem = l.b.try_set_repeat(
        3, {CarryText{"x", "y", carry_at("x")}, CarryText{"w", "g", carry_at("w")}}, kTimesAt);
    REQUIRE(problem.has_value());
    CHECK(problem->where().str() == carry_at("w").str());
    CHECK_FALSE(l.b.finish().repeat.has_value());
}

TEST_CASE("every: an observed output is written at iterations K, 2K, ... and after the last",
          "[repeat][every][builder]") {
    Loop l;
    REQUIRE_FALSE(l.b.try_set_repeat(7, {CarryText{"x", "y", carry_at("x")}}, kTimesAt));
    REQUIRE_FALSE(l.b.try_add_observed_output("y", "out.h5", "/y", 3, output_at("y")));
    REQUIRE_FALSE(l.b.try_add_observed_output("z", "out.h5", "/r/z", 8, output_at("z")));
    REQUIRE_FALSE(l.b.try_add_output("x", "out.h5", "/x", at("outputs.x")));
    const Program p = l.b.finish();
    std::vector<std::string> datasets;
    std::vector<std::int64_t> iterations;
    for (const Output& o : p.outputs) {
        datasets.push_back(o.dataset);
        iterations.push_back(o.iteration);
    }
    // every 8 > times 7: no observation, only the final dataset.
    CHECK(datasets == std::vector<std::string>{"/y@3", "/y@6", "/y", "/r/z", "/x"});
    CHECK(iterations == std::vector<std::int64_t>{3, 6, 0, 0, 0});
    CHECK(p.outputs[0].node == l.id("y"));
    CHECK(p.outputs[3].node == l.id("z"));
    CHECK(p.node(l.id("z")).needed);
}

TEST_CASE("every: refused below 1, without a repeat, and past 100000 observations",
          "[repeat][every][builder][errors]") {
    SECTION("every 0 and -2") {
        for (std::int64_t every : {0, -2}) {
            Loop l;
            REQUIRE_FALSE(l.b.try_set_repeat(4, {}, kTimesAt));
            const auto problem =
                l.b.try_add_observed_output("y", "out.h5", "/y", every, output_at("y"));
            REQUIRE(problem.has_value());
            CHECK(problem->where().str() == "loop.yaml:20:30: outputs.y.every");
            CHECK(problem->message() == "every must be at least 1");
            CHECK(l.b.finish().outputs.empty());
        }
    }
    SECTION("no repeat") {
        Loop l;
        const auto problem = l.b.try_add_observed_output("y", "out.h5", "/y", 2, output_at("y"));
        REQUIRE(problem.has_value());
        CHECK(problem->where().str() == "loop.yaml:20:30: outputs.y.every");
        CHECK(problem->message() ==
              "every: observes an output during a loop; this workflow has no repeat");
        CHECK(l.b.finish().outputs.empty());
    }
    SECTION("too many observations") {
        Loop l;
        REQUIRE_FALSE(l.b.try_set_repeat(200002, {}, kTimesAt));
        const auto problem = l.b.try_add_observed_output("y", "out.h5", "/y", 2, output_at("y"));
        REQUIRE(problem.has_value());
        CHECK(problem->where().str() == "loop.yaml:20:30: outputs.y.every");
        CHECK(problem->message() ==
              "every 2 of 200002 iterations writes 100001 datasets, more "
              "than 100000; observe less often");
        CHECK(l.b.finish().outputs.empty());
    }
    SECTION("an unknown relation") {
        Loop l;
        REQUIRE_FALSE(l.b.try_set_repeat(4, {}, kTimesAt));
        const auto problem = l.b.try_add_observed_output("q", "out.h5", "/q", 2, output_at("q"));
        REQUIRE(problem.has_value());
        CHECK_THAT(problem->message(), Catch::Contains("unknown relation 'q'"));
    }
}

TEST_CASE("reference loop: x <- 2 x carried 3 times gives 8 x", "[repeat][reference]") {
    Loop l;
    REQUIRE_FALSE(l.b.try_set_repeat(3, {CarryText{"x", "y", carry_at("x")}}, kTimesAt));
    // y and x observed in every iteration, and both after the last; z = x + w read once.
    REQUIRE_FALSE(l.b.try_add_observed_output("y", "out.h5", "/y", 1, output_at("y")));
    REQUIRE_FALSE(l.b.try_add_observed_output("x", "out.h5", "/x", 1, output_at("x")));
    REQUIRE_FALSE(l.b.try_add_output("z", "out.h5", "/z", at("outputs.z")));
    const Program p = l.b.finish();
    ReferenceEvaluator ev(p);
    std::vector<std::string> order;
    const std::vector<TensorRelation> values = ev.evaluate_outputs(
        [&](std::size_t i, const TensorRelation&) { order.push_back(p.outputs.at(i).dataset); });
    CHECK(ev.iteration() == 3);
    // Each iteration's observations as soon as they are known, in program order.
    CHECK(order == std::vector<std::string>{"/y@1", "/x@1", "/y@2", "/x@2", "/y@3", "/y", "/x@3",
                                            "/x", "/z"});
    REQUIRE(values.size() == p.outputs.size());
    // Outputs: /y@1 /y@2 /y@3 /y /x@1 /x@2 /x@3 /x /z.
    const std::vector<double> factors = {2, 4, 8, 8, 1, 2, 4, 4, 4};
    for (std::size_t i = 0; i < values.size(); ++i) {
        INFO(p.outputs[i].dataset);
        check_times_x0(values[i], factors[i]);
    }
}

TEST_CASE("reference loop: next_iteration carries, keeps other inputs, recomputes steps",
          "[repeat][reference]") {
    Loop l;
    REQUIRE_FALSE(l.b.try_set_repeat(5, {CarryText{"x", "y", carry_at("x")}}, kTimesAt));
    REQUIRE_FALSE(l.b.try_add_output("z", "out.h5", "/z", at("outputs.z")));
    const Program p = l.b.finish();
    ReferenceEvaluator ev(p);
    CHECK(ev.iteration() == 1);
    check_times_x0(ev.evaluate(l.id("x")), 1);
    check_times_x0(ev.evaluate(l.id("z")), 1);  // x + 0
    ev.next_iteration();
    CHECK(ev.iteration() == 2);
    check_times_x0(ev.evaluate(l.id("x")), 2);
    check_times_x0(ev.evaluate(l.id("y")), 4);
    check_times_x0(ev.evaluate(l.id("z")), 2);  // recomputed from the new x
    ev.next_iteration();
    CHECK(ev.iteration() == 3);
    check_times_x0(ev.evaluate(l.id("z")), 4);  // y of iteration 2 carried, w still zero
}

TEST_CASE("reference loop: carries are simultaneous (a <- b, b <- a + b)", "[repeat][reference]") {
    ProgramBuilder b("fib", DType::F64);
    b.add_input("a", Shape{2}, Shape{1}, DType::F64, generated(Kind::Constant, 1, 0), at("a"));
    b.add_input("b", Shape{2}, Shape{1}, DType::F64, generated(Kind::Constant, 1, 0), at("b"));
    b.add_transform("na", "b", scale(1), at("na"));
    b.add_join("nb", "a", "b", {0}, {0}, KernelCall("add"), at("nb"));
    REQUIRE_FALSE(b.try_set_repeat(
        5, {CarryText{"a", "na", carry_at("a")}, CarryText{"b", "nb", carry_at("b")}}, kTimesAt));
    REQUIRE_FALSE(b.try_add_observed_output("nb", "out.h5", "/nb", 1, output_at("nb")));
    REQUIRE_FALSE(b.try_add_output("na", "out.h5", "/na", at("outputs.na")));
    const Program p = b.finish();
    ReferenceEvaluator ev(p);
    const std::vector<TensorRelation> values = ev.evaluate_outputs();
    // (a, b) per iteration: (1, 1), (1, 2), (2, 3), (3, 5), (5, 8); nb = a + b: 2, 3, 5, 8, 13.
    // Each carry takes its step's value in the iteration that just ended: were a updated
    // before nb was computed, nb would be 2 b instead.
    const std::vector<double> want = {2, 3, 5, 8, 13, 13, 8};  // /nb@1../nb@5, /nb, /na
    REQUIRE(values.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        INFO(p.outputs[i].dataset);
        REQUIRE(values[i].tuples.size() == 2);
        for (const auto& [k, t] : values[i].tuples) CHECK(t.get(0) == want[i]);
    }
}

TEST_CASE("reference loop: a program without repeat runs once", "[repeat][reference]") {
    Loop l;
    REQUIRE_FALSE(l.b.try_add_output("y", "out.h5", "/y", at("outputs.y")));
    const Program p = l.b.finish();
    ReferenceEvaluator ev(p);
    const std::vector<TensorRelation> values = ev.evaluate_outputs();
    CHECK(ev.iteration() == 1);
    REQUIRE(values.size() == 1);
    check_times_x0(values[0], 2);
    CHECK_THROWS_AS(ev.next_iteration(), Error);
}

TEST_CASE("repeat: plans/models/mlp_loop.yaml loads as a 6-iteration loop carrying the weights",
          "[repeat][workflow]") {
    const Program p =
        workflow::load_workflow(std::string(TRA_SOURCE_DIR) + "/plans/models/mlp_loop.yaml");
    REQUIRE(p.repeat.has_value());
    CHECK(p.repeat->times == 6);
    REQUIRE(p.repeat->carry.size() == 2);
    CHECK(p.node(p.repeat->carry[0].input).name == "W1");
    CHECK(p.node(p.repeat->carry[0].step).name == "W1n");
    CHECK(p.node(p.repeat->carry[1].input).name == "W2");
    CHECK(p.node(p.repeat->carry[1].step).name == "W2n");
    CHECK(p.repeat->carry[0].where.line == 38);
    std::vector<std::string> datasets;
    std::vector<std::int64_t> iterations;
    for (const Output& o : p.outputs) {
        datasets.push_back(o.dataset);
        iterations.push_back(o.iteration);
    }
    CHECK(datasets ==
          std::vector<std::string>{"/loss@2", "/loss@4", "/loss@6", "/loss", "/W1n", "/W2n"});
    CHECK(iterations == std::vector<std::int64_t>{2, 4, 6, 0, 0, 0});
}
