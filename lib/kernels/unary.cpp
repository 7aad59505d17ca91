// Kernels that map every element of one tile on its own: scale, the activation functions and the
// named scalar functions (sqrt, abs, sin, ...).
#include <cmath>

#include "kernels/cpu_kernels.hpp"
#include "kernels/parallel_for.hpp"
#include "kernels/vector_math.hpp"

namespace tra::kernels::cpu {

namespace {

// c[i] = f(a[i], factor) for i in [0, n): the loop every map runs, compiled per instruction set
// (TRA_VECTOR_CLONES) so that GCC vectorises it with the widest vectors the CPU has. c is a new
// tile, never a.
template <class T, class F>
TRA_VECTOR_CLONES void map_block(const T* a, T* __restrict c, std::int64_t n, T factor, F f) {
    for (std::int64_t i = 0; i < n; ++i) c[i] = f(a[i], factor);
}

template <class F>
Kernel make_map(const std::string& name, const std::string& summary,
                std::vector<std::string> distributes_over, bool zero_preserving, F f) {
    Kernel k;
    k.name = name;
    k.arity = 1;
    k.properties.elementwise = true;
    k.properties.distributes_over = std::move(distributes_over);
    k.properties.zero_preserving = zero_preserving;
    // log(0), rsqrt(0) and 1/0 are infinite, sqrt and log of a negative NaN; the others map
    // every finite x to a finite value (exp and square overflow aside).
    k.properties.finite =
        name != "log" && name != "sqrt" && name != "rsqrt" && name != "reciprocal";
    k.summary = summary;
    k.output_shape = [name](std::span<const Shape> ops, const KernelParams& p) -> Checked<Shape> {
        if (auto problem = operand_count_problem(name, ops.size(), 1)) return *problem;
        if (name == "scale" && !p.factor) return Error("scale needs a factor, e.g. scale(0.5)");
        return ops[0];
    };
    k.apply = [name, f](std::span<const Tile* const> ops, const KernelParams& p,
                        const TilePosition&) {
        expect_operand_count(name, ops.size(), 1);
        DType d = common_dtype(name, ops);
        if (name == "scale" && !p.factor) throw Error("scale needs a factor, e.g. scale(0.5)");
        Tile out = Tile::uninitialized(d, ops[0]->shape());  // every element written below
        visit_dtype(d, [&](auto t) {
            using T = decltype(t);
            const T* a = ops[0]->data<T>();
            T* c = out.data<T>();
            T factor = static_cast<T>(p.factor.value_or(1.0));
            parallel_for(out.elements(), kGrainElements, [&](std::int64_t begin, std::int64_t end) {
                map_block(a + begin, c + begin, end - begin, factor, f);
            });
        });
        return out;
    };
    return k;
}

// The erf form 0.5 x (1 + erf(x / sqrt 2)), written with erfc: 1 + erf(z) == erfc(-z), which
// keeps its relative accuracy where erf(z) nears -1 (x well below 0) instead of cancelling.
template <class T>
T gelu(T x) {
    return T(0.5) * x * std::erfc(-x * T(0.70710678118654752440));
}

// The tanh form 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), as x sigmoid(2u):
// 1 + tanh(u) == 2 sigmoid(2u), and the sign-split sigmoid neither overflows nor cancels.
template <class T>
[[gnu::always_inline]] inline T gelu_tanh(T x) {
    const T u = T(0.79788456080286535588) * (x + T(0.044715) * x * x * x);
    return x * vmath::sigmoid(T(2) * u);
}

// log(1 + exp(x)) == log1p(exp(-|x|)) + max(x, 0): exp's argument is never positive, so it
// cannot overflow, and log1p keeps the small tail exact.
template <class T>
T softplus(T x) {
    return std::log1p(std::exp(-std::abs(x))) + (x > T(0) ? x : T(0));
}

}  // namespace

std::vector<Kernel> unary_kernels() {
    // Nondecreasing functions commute with max and min: f(max(a, b)) == max(f(a), f(b)). A
    // decreasing one (neg, rsqrt, reciprocal on one side of 0) swaps them, and a function that
    // rises and falls (square, abs, gelu, silu, sin, cos) keeps neither, so those list none.
    const std::vector<std::string> monotone = {"max", "min"};
    // zero_preserving (the last flag before the function) is f(0) == 0, said for each kernel.
    std::vector<Kernel> out;
    // scale is linear; it preserves max/min only for a positive factor, which the kernel
    // cannot promise, so it lists add alone. 0 * factor == 0 for every finite factor.
    out.push_back(make_map("scale", "multiplies every element by params.factor", {"add"}, true,
                           [](auto x, auto f) { return x * f; }));
    out.push_back(make_map("relu", "max(x, 0) elementwise", monotone, true,
                           [](auto x, auto) { return x > decltype(x)(0) ? x : decltype(x)(0); }));
    out.push_back(make_map("relu_grad", "1 where x > 0, else 0: the derivative of relu", monotone,
                           true,
                           [](auto x, auto) { return decltype(x)(x > decltype(x)(0) ? 1 : 0); }));
    // sigmoid(0) == 0.5, exp(0) == 1, log(0) == -inf: none keeps zeros. sigmoid, exp and silu
    // use vector_math.hpp's exp, which vectorises (the C library's does not).
    out.push_back(make_map("sigmoid", "logistic function 1 / (1 + exp(-x)) elementwise", monotone,
                           false, [](auto x, auto) { return vmath::sigmoid(x); }));
    out.push_back(make_map("tanh", "hyperbolic tangent elementwise", monotone, true,
                           [](auto x, auto) { return std::tanh(x); }));
    out.push_back(make_map("exp", "exponential elementwise", monotone, false,
                           [](auto x, auto) { return vmath::exp(x); }));
    out.push_back(make_map("log", "natural logarithm elementwise", monotone, false,
                           [](auto x, auto) { return std::log(x); }));

    // sqrt rises on its domain x >= 0 (NaN below it, like log for x < 0).
    out.push_back(make_map("sqrt", "square root elementwise", monotone, true,
                           [](auto x, auto) { return std::sqrt(x); }));
    // rsqrt falls (max becomes min) and rsqrt(0) == inf.
    out.push_back(make_map("rsqrt", "1 / sqrt(x) elementwise", {}, false,
                           [](auto x, auto) { return decltype(x)(1) / std::sqrt(x); }));
    // square and abs fall below 0 and rise above it; both keep 0.
    out.push_back(
        make_map("square", "x * x elementwise", {}, true, [](auto x, auto) { return x * x; }));
    out.push_back(make_map("abs", "absolute value elementwise", {}, true,
                           [](auto x, auto) { return std::abs(x); }));
    // neg is linear, so sums pass through, but it turns max into min; -0 == 0.
    out.push_back(
        make_map("neg", "-x elementwise", {"add"}, true, [](auto x, auto) { return -x; }));
    // 1/x falls on each side of 0 and jumps at it (1/0 == inf).
    out.push_back(make_map("reciprocal", "1 / x elementwise", {}, false,
                           [](auto x, auto) { return decltype(x)(1) / x; }));
    // gelu, gelu_tanh and silu dip below 0 for negative x (to about -0.17, -0.17, -0.28) and
    // rise again towards 0: not monotone. Each is x times a factor, so f(0) == 0.
    out.push_back(make_map("gelu", "0.5 x (1 + erf(x / sqrt(2))) elementwise (exact GELU)", {},
                           true, [](auto x, auto) { return gelu(x); }));
    out.push_back(
        make_map("gelu_tanh",
                 "0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) elementwise (GELU, tanh form)",
                 {}, true, [](auto x, auto) { return gelu_tanh(x); }));
    out.push_back(make_map("silu", "x * sigmoid(x) elementwise (swish; numerically stable)", {},
                           true, [](auto x, auto) { return x * vmath::sigmoid(x); }));
    // softplus rises everywhere; softplus(0) == log 2.
    out.push_back(make_map("softplus", "log(1 + exp(x)) elementwise (numerically stable)", monotone,
                           false, [](auto x, auto) { return softplus(x); }));
    // sin and cos oscillate; sin(0) == 0, cos(0) == 1.
    out.push_back(
        make_map("sin", "sine elementwise", {}, true, [](auto x, auto) { return std::sin(x); }));
    out.push_back(
        make_map("cos", "cosine elementwise", {}, false, [](auto x, auto) { return std::cos(x); }));
    return out;
}

}  // namespace tra::kernels::cpu
