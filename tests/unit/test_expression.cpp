// Element-wise expressions (lib/kernels/expression.hpp): values against the C library's results
// computed by hand, precedence, blocks, constant folding, f(0) = 0 and every kind of error with
// its column.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kernels/expression.hpp"

using namespace tra;
using namespace tra::kernels::expr;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

Program program_of(const std::string& text, Context context = Context::Transform) {
    Checked<Program> p = compile(text, context);
    INFO(text << ": " << (p.ok() ? "" : p.problem().message()));
    REQUIRE(p.ok());
    return *p;
}

// The program on x (and b) element by element, in T.
template <class T>
std::vector<T> eval(const Program& p, const std::vector<T>& x, const std::vector<T>& b = {}) {
    std::vector<T> out(x.size(), T(-7));
    const T* in[2] = {x.data(), b.data()};
    evaluate<T>(p, std::span<const T* const>(in, p.inputs), out.data(),
                static_cast<std::int64_t>(x.size()));
    return out;
}

// Both NaN, or equal within `ulps` units in the last place (0: exactly).
template <class T>
bool same(T got, T want, int ulps = 0) {
    if (std::isnan(want)) return std::isnan(got);
    if (std::isinf(want) || want == T(0)) return got == want;
    const T tol = T(ulps) * std::numeric_limits<T>::epsilon() * std::abs(want);
    return std::abs(got - want) <= tol;
}

template <class T>
T sigmoid(T x) {
    if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
    return std::exp(x) / (T(1) + std::exp(x));
}

template <class T>
T numpy_max(T x, T y) {
    return std::isnan(x) || std::isnan(y) ? std::numeric_limits<T>::quiet_NaN() : std::max(x, y);
}
template <class T>
T numpy_min(T x, T y) {
    return std::isnan(x) || std::isnan(y) ? std::numeric_limits<T>::quiet_NaN() : std::min(x, y);
}

// Every function and operator on values that reach each one's edges (negative logs and roots,
// zero divisors, NaN, infinities, sigmoid's overflowing side).
template <class T>
void check_functions() {
    const std::vector<T> xs = {T(-800), T(-2.5), T(-0.5), T(-0.0), T(0),     T(0.3),
                               T(1),    T(4),    T(800),  T(kInf), T(-kInf), T(kNaN)};
    const std::vector<T> bs = {T(2), T(0),   T(-3), T(kNaN), T(0.5), T(-0.0),
                               T(1), T(0.5), T(5),  T(-1),   T(2),   T(1)};
    struct Case {
        const char* text;
        std::function<T(T, T)> want;
        int ulps;  // 0 where the operation is exact in IEEE arithmetic
    };
    const std::vector<Case> unary = {
        {"-x", [](T x, T) { return -x; }, 0},
        {"exp(x)", [](T x, T) { return std::exp(x); }, 1},
        {"log(x)", [](T x, T) { return std::log(x); }, 1},
        {"sqrt(x)", [](T x, T) { return std::sqrt(x); }, 0},
        {"rsqrt(x)", [](T x, T) { return T(1) / std::sqrt(x); }, 0},
        {"tanh(x)", [](T x, T) { return std::tanh(x); }, 1},
        {"sigmoid(x)", [](T x, T) { return sigmoid(x); }, 2},
        {"erf(x)", [](T x, T) { return std::erf(x); }, 1},
        {"abs(x)", [](T x, T) { return std::abs(x); }, 0},
        {"sin(x)", [](T x, T) { return std::sin(x); }, 1},
        {"cos(x)", [](T x, T) { return std::cos(x); }, 1},
        {"x + 1.5", [](T x, T) { return x + T(1.5); }, 0},
        {"x * x * x", [](T x, T) { return x * x * x; }, 0},
    };
    for (const Case& c : unary) {
        const std::vector<T> got = eval(program_of(c.text), xs);
        for (std::size_t i = 0; i < xs.size(); ++i) {
            INFO(c.text << " at x = " << xs[i] << ": got " << got[i]);
            CHECK(same(got[i], c.want(xs[i], T(0)), c.ulps));
        }
    }
    const std::vector<Case> binary = {
        {"a + b", [](T a, T b) { return a + b; }, 0},
        {"a - b", [](T a, T b) { return a - b; }, 0},
        {"a * b", [](T a, T b) { return a * b; }, 0},
        {"a / b", [](T a, T b) { return a / b; }, 0},
        {"min(a, b)", [](T a, T b) { return numpy_min(a, b); }, 0},
        {"max(a, b)", [](T a, T b) { return numpy_max(a, b); }, 0},
        {"pow(a, b)", [](T a, T b) { return std::pow(a, b); }, 1},
        {"(a - b) * (a - b)", [](T a, T b) { return (a - b) * (a - b); }, 0},
        {"2 - a / b", [](T a, T b) { return T(2) - a / b; }, 0},
    };
    for (const Case& c : binary) {
        const std::vector<T> got = eval(program_of(c.text, Context::Join), xs, bs);
        for (std::size_t i = 0; i < xs.size(); ++i) {
            INFO(c.text << " at a = " << xs[i] << ", b = " << bs[i] << ": got " << got[i]);
            CHECK(same(got[i], c.want(xs[i], bs[i]), c.ulps));
        }
    }
}

}  // namespace

TEST_CASE("expressions compute every function and operator as the C library does") {
    check_functions<float>();
    check_functions<double>();
}

TEST_CASE("min and max propagate NaN from either operand, like numpy") {
    const Program max = program_of("max(a, b)", Context::Join);
    const Program min = program_of("min(b, a)", Context::Join);
    const std::vector<double> a = {kNaN, 1.0, kNaN, 2.0};
    const std::vector<double> b = {1.0, kNaN, kNaN, 3.0};
    for (const Program* p : {&max, &min}) {
        const std::vector<double> got = eval(*p, a, b);
        CHECK(std::isnan(got[0]));
        CHECK(std::isnan(got[1]));
        CHECK(std::isnan(got[2]));
        CHECK(got[3] == (p == &max ? 3.0 : 2.0));
    }
}

TEST_CASE("sigmoid does not overflow on either side") {
    const std::vector<double> got =
        eval(program_of("sigmoid(x)"), std::vector<double>{-1000, 1000});
    CHECK(got[0] == 0.0);
    CHECK(got[1] == 1.0);
    const std::vector<float> f = eval(program_of("sigmoid(x)"), std::vector<float>{-200, 200});
    CHECK(f[0] == 0.0f);
    CHECK(f[1] == 1.0f);
}

TEST_CASE("precedence: * and / before + and -, left to right, unary minus binds tightest") {
    const std::vector<double> x = {3.0};
    const std::vector<std::pair<const char*, double>> cases = {
        {"1 + 2 * x", 7},      {"(1 + 2) * x", 9},   {"x - 1 - 1", 1},     {"x - (1 - 1)", 3},
        {"12 / x / 2", 2},     {"12 / (x / 2)", 8},  {"-x * 2", -6},       {"2 * -x", -6},
        {"- -x", 3},           {"x - -1", 4},        {"-x - -x", 0},       {"-(x + 1) * 2", -8},
        {"2 * x + 3 * x", 15}, {"x * x - x / x", 8}, {"-2 * -x", 6},       {"1 - x * 2 + 4", -1},
        {".5 * x", 1.5},       {"3. + x", 6},        {"1e1 * x", 30},      {"2.5E-1 * x", 0.75},
        {"1e+1 - x", 7},       {" x\t*\n2 ", 6},     {"pow(x, 2) - 1", 8}, {"max(-x, 1 - x)", -2},
    };
    for (const auto& [text, want] : cases) {
        INFO(text);
        CHECK(eval(program_of(text), x)[0] == want);
    }
}

TEST_CASE("evaluation covers blocks exactly: n = 0, 1, 255, 256, 257, 10000") {
    const Program p = program_of("x * rsqrt(x * x + 1e-6) + sin(x) * 2");
    const Program q = program_of("a * b - exp(a)", Context::Join);
    for (std::int64_t n : {0, 1, 255, 256, 257, 10000}) {
        INFO("n = " << n);
        std::vector<double> x(static_cast<std::size_t>(n) + 1), b(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) {
            x[i] = std::sin(0.37 * double(i)) * 3;
            b[i] = double(i % 7) - 3;
        }
        std::vector<double> out(x.size(), -7.0);  // one past n must stay untouched
        const double* in[2] = {x.data(), b.data()};
        evaluate<double>(p, std::span<const double* const>(in, 1), out.data(), n);
        for (std::int64_t i = 0; i < n; ++i) {
            const double v = x[std::size_t(i)];
            REQUIRE(same(out[std::size_t(i)], v * (1.0 / std::sqrt(v * v + 1e-6)) + std::sin(v) * 2,
                         4));
        }
        CHECK(out[std::size_t(n)] == -7.0);
        std::vector<float> xf(x.begin(), x.end()), bf(b.begin(), b.end()), outf(x.size(), -7.0f);
        const float* inf[2] = {xf.data(), bf.data()};
        evaluate<float>(q, std::span<const float* const>(inf, 2), outf.data(), n);
        for (std::int64_t i = 0; i < n; ++i) {
            const float a = xf[std::size_t(i)], bb = bf[std::size_t(i)];
            REQUIRE(same(outf[std::size_t(i)], a * bb - std::exp(a), 4));
        }
        CHECK(outf[std::size_t(n)] == -7.0f);
    }
}

TEST_CASE("constants fold at compile time, in each dtype as evaluation would compute them") {
    const Program p = program_of("2 * 3 + x");
    CHECK(p.code.size() == 1);
    REQUIRE(p.constants == std::vector<double>{6.0});
    // exp(1) folded in f32 is expf(1), not the f64 value rounded.
    const Program e = program_of("x * exp(1)");
    REQUIRE(e.constants.size() == 1);
    CHECK(e.constants_f32[0] == std::exp(1.0f));
    CHECK(e.constants[0] == std::exp(1.0));
    // Repeated constants are stored once.
    CHECK(program_of("x * 2 + 2 - x / 2").constants.size() == 1);
    // A whole constant or a bare variable needs no instruction.
    const Program c = program_of("sqrt(16) - 1");
    CHECK(c.code.empty());
    CHECK(eval(c, std::vector<double>{5, 6}) == std::vector<double>{3, 3});
    CHECK(eval(program_of("b", Context::Join), std::vector<float>{1, 2},
               std::vector<float>{8, 9}) == std::vector<float>{8, 9});
    // 0 / 0 folds to NaN, and NaN is a constant like any other.
    CHECK(std::isnan(eval(program_of("0 / 0 + x"), std::vector<double>{1})[0]));
}

TEST_CASE("f(0) = 0 is derived by evaluating on zeros in f32 and f64") {
    for (const char* text : {"x*rsqrt(x*x+1e-6)", "x", "-x", "sin(x)", "max(x, 0)", "x * 2",
                             "exp(x) - 1", "tanh(x) * sqrt(abs(x))", "erf(x)", "pow(x, 2)"}) {
        INFO(text);
        CHECK(program_of(text).zero_preserving);
    }
    for (const char* text : {"log(x)", "x/x", "sigmoid(x)", "x + 1", "cos(x)", "0 * log(x)",
                             "rsqrt(x)", "pow(x, 0)", "exp(x)"}) {
        INFO(text);
        CHECK(!program_of(text).zero_preserving);
    }
    CHECK(program_of("(a - b) * (a - b)", Context::Join).zero_preserving);
    CHECK(program_of("a * b", Context::Join).zero_preserving);
    CHECK(!program_of("a / b", Context::Join).zero_preserving);
    CHECK(!program_of("a - b + 1", Context::Join).zero_preserving);
    // 1e-30 rounds to a nonzero f32 and f64; 1e-50 is 0 in f32 alone: not zero-preserving.
    CHECK(!program_of("x + 1e-30").zero_preserving);
    CHECK(!program_of("exp(x) - 1 + 1e-50").zero_preserving);
}

TEST_CASE("heavier operands first keep the temporaries few") {
    // A balanced product of 512 negations: without the ordering one per level would be alive.
    std::function<std::string(int)> tree = [&](int depth) -> std::string {
        return depth == 0 ? "-x" : "(" + tree(depth - 1) + "*" + tree(depth - 1) + ")";
    };
    const Program p = program_of(tree(9));
    CHECK(p.temporaries <= 12);  // log2 of its 512 leaves, + 3
    CHECK(eval(p, std::vector<double>{1.0, -1.0}) == std::vector<double>{1.0, 1.0});
    // A right-nested chain of exp(x) products nests 60 deep yet needs 4 temporaries: the chain
    // so far, exp(x), their product, and the result's own.
    std::string chain = "x";
    for (int i = 0; i < 60; ++i) chain = "exp(x) * (" + chain + ")";
    const Program c = program_of(chain);
    CHECK(c.temporaries == 4);
    CHECK(eval(c, std::vector<double>{0.0})[0] == 0.0);
    // The longest allowed left chain compiles.
    std::string sum = "x";
    while (sum.size() + 2 <= kMaxLength) sum += "+x";
    CHECK(compile(sum, Context::Transform).ok());
}

namespace {

// The problem compiling `text`, checked to be located at `column` alone and to say so.
std::string error_at(const std::string& text, int column, Context context = Context::Transform) {
    const Checked<Program> p = compile(text, context);
    INFO(text);
    REQUIRE(!p.ok());
    const Error& e = p.problem();
    CHECK(e.where().column == column);
    CHECK(e.where().file.empty());
    CHECK(e.where().line == 0);
    const std::string prefix = "column " + std::to_string(column) + " of the expression \"";
    CHECK(e.message().rfind(prefix, 0) == 0);
    return e.message().substr(e.message().find("\": ") + 3);
}

}  // namespace

TEST_CASE("expression errors are values naming the column") {
    CHECK(error_at("", 1) == "the expression is empty");
    CHECK(error_at("   ", 1) == "the expression is empty");
    // Unknown names and functions, and functions without their arguments.
    CHECK(error_at("x + y", 5) == "unknown name 'y'; the variables are x (a transform's element)");
    CHECK(error_at("2 * foo(x)", 5).rfind("unknown function 'foo'; the functions are exp, ", 0) ==
          0);
    CHECK(error_at("exp + 1", 1) == "function 'exp' needs '(' and its arguments");
    // Variables of the other context.
    CHECK(error_at("a + 1", 1) ==
          "variable 'a' is not available here; the variables are x (a transform's element)");
    CHECK(error_at("a * x", 5, Context::Join) ==
          "variable 'x' is not available here; the variables are a and b (a join's elements)");
    // Arity.
    CHECK(error_at("exp(x, 1)", 6) == "'exp' takes 1 argument, got more");
    CHECK(error_at("pow(x)", 6) == "'pow' takes 2 arguments, got 1");
    CHECK(error_at("min()", 5) == "'min' takes 2 arguments, got none");
    CHECK(error_at("max(x, 1, 2)", 9) == "'max' takes 2 arguments, got more");
    // Syntax.
    CHECK(error_at("x +", 4) ==
          "expected a number, a variable, a function or '(', got the end of the expression");
    CHECK(error_at("*x", 1) == "expected a number, a variable, a function or '(', got '*'");
    CHECK(error_at("(x + 1", 7) ==
          "expected ')' to close the '(' at column 1, got the end of the expression");
    CHECK(error_at("exp(x", 6) ==
          "expected ')' to close the call of 'exp', got the end of the expression");
    CHECK(error_at("x)", 2) == "unmatched ')'");
    CHECK(error_at("x 2", 3) == "unexpected '2' after a complete expression");
    CHECK(error_at("(x)(x)", 4) == "unexpected '(' after a complete expression");
    CHECK(error_at("x ^ 2", 3) == "'^' is not an operator; write pow(x, y)");
    CHECK(error_at("x ** 2", 3) == "'**' is not an operator; write pow(x, y)");
    CHECK(error_at("x % 2", 3) == "unexpected character '%'");
    CHECK(error_at("x\x01", 2) == "unexpected character byte 0x01");
    CHECK(error_at("+x", 1) == "expected a number, a variable, a function or '(', got '+'");
    // Numbers.
    CHECK(error_at("x * 1e", 5) == "malformed number '1e'");
    CHECK(error_at("2x", 1) == "malformed number '2x'");
    CHECK(error_at("1.2.3 + x", 1) == "malformed number '1.2.3'");
    CHECK(error_at("x + .", 5) == "malformed number '.'");
    CHECK(error_at("x * 1e999", 5) == "the number '1e999' is out of range");
}

TEST_CASE("expressions over the length or nesting limits are refused") {
    const std::string longest(kMaxLength, ' ');
    CHECK(error_at(longest, 1) == "the expression is empty");
    CHECK(error_at(longest + "x", int(kMaxLength) + 1) ==
          "the expression is 4097 characters long; at most 4096 are allowed");
    const std::string too_long =
        compile(std::string(100000, '('), Context::Transform).problem().message();
    CHECK(too_long.size() < 300);  // the message quotes a prefix, not all of it

    const auto nested = [](const std::string& open, std::size_t n, const std::string& close) {
        std::string s;
        for (std::size_t i = 0; i < n; ++i) s += open;
        s += "x";
        for (std::size_t i = 0; i < n; ++i) s += close;
        return s;
    };
    CHECK(compile(nested("(", kMaxNesting, ")"), Context::Transform).ok());
    CHECK(compile(nested("-", kMaxNesting, ""), Context::Transform).ok());
    CHECK(compile(nested("exp(", kMaxNesting, ")"), Context::Transform).ok());
    const std::string deep = "the expression nests more than 64 levels deep";
    CHECK(error_at(nested("(", kMaxNesting + 1, ")"), int(kMaxNesting) + 1) == deep);
    CHECK(error_at(nested("-", kMaxNesting + 1, ""), int(kMaxNesting) + 1) == deep);
    CHECK(error_at(nested("sin(", kMaxNesting + 1, ")"), 4 * int(kMaxNesting) + 1) == deep);
    // Parentheses and unary minus count alike: the 65th level is refused within the length.
    CHECK(error_at(nested("(-", 1000, ")"), int(kMaxNesting) + 1) == deep);
}

TEST_CASE("compiled: one program per text and context, looked up after the first compile") {
    const Program& first = compiled("x * 2", Context::Transform);
    CHECK(&compiled("x * 2", Context::Transform) == &first);
    CHECK(compiled("a * 2", Context::Join).inputs == 2);
    CHECK_THROWS_WITH(compiled("x * y", Context::Transform), Catch::Contains("unknown name 'y'"));
    // Past the bound the lookup starts afresh; every program is still the text's own.
    for (int i = 0; i < 200; ++i) {
        const std::string text = "x + " + std::to_string(i);
        const Program& p = compiled(text, Context::Transform);
        REQUIRE(p.text == text);
        REQUIRE(compiled(text, Context::Transform).text == text);
    }
    CHECK(compiled("x * 2", Context::Transform).text == "x * 2");
}
