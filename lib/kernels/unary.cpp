// Kernels that map every element of one tile on its own: scale and the activation functions.
#include <cmath>

#include "kernels/cpu_kernels.hpp"
#include "kernels/parallel_for.hpp"

namespace tra::kernels::cpu {

namespace {

template <class F>
Kernel make_map(const std::string& name, const std::string& summary,
                std::vector<std::string> distributes_over, F f) {
    Kernel k;
    k.name = name;
    k.arity = 1;
    k.properties.elementwise = true;
    k.properties.distributes_over = std::move(distributes_over);
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
            // Elements per thread below which the map runs on one thread (a fork costs
            // microseconds; exp and tanh cost more per element than scale, so this is low).
            constexpr std::int64_t kGrainElements = 1 << 14;
            parallel_for(out.elements(), kGrainElements, [&](std::int64_t begin, std::int64_t end) {
                for (std::int64_t i = begin; i < end; ++i) c[i] = f(a[i], factor);
            });
        });
        return out;
    };
    return k;
}

template <class T>
T sigmoid(T x) {
    // Split by sign so exp never overflows: both branches are the same function.
    if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
    T e = std::exp(x);
    return e / (T(1) + e);
}

}  // namespace

std::vector<Kernel> unary_kernels() {
    // Nondecreasing functions commute with max and min: f(max(a, b)) == max(f(a), f(b)).
    const std::vector<std::string> monotone = {"max", "min"};
    std::vector<Kernel> out;
    // scale is linear; it preserves max/min only for a positive factor, which the kernel
    // cannot promise, so it lists add alone.
    out.push_back(make_map("scale", "multiplies every element by params.factor", {"add"},
                           [](auto x, auto f) { return x * f; }));
    out.push_back(make_map("relu", "max(x, 0) elementwise", monotone, [](auto x, auto) {
        return x > decltype(x)(0) ? x : decltype(x)(0);
    }));
    out.push_back(make_map("relu_grad", "1 where x > 0, else 0: the derivative of relu", monotone,
                           [](auto x, auto) { return decltype(x)(x > decltype(x)(0) ? 1 : 0); }));
    out.push_back(make_map("sigmoid", "logistic function 1 / (1 + exp(-x)) elementwise",
                           monotone, [](auto x, auto) { return sigmoid(x); }));
    out.push_back(make_map("tanh", "hyperbolic tangent elementwise", monotone,
                           [](auto x, auto) { return std::tanh(x); }));
    out.push_back(make_map("exp", "exponential elementwise", monotone,
                           [](auto x, auto) { return std::exp(x); }));
    out.push_back(make_map("log", "natural logarithm elementwise", monotone,
                           [](auto x, auto) { return std::log(x); }));
    return out;
}

}  // namespace tra::kernels::cpu
