#pragma once
// Internal to the expression compiler and evaluator: the scalar meaning of each Op, written
// once, so folding a constant at compile time and evaluating it per element agree bit for bit
// (the files that include it compile without fma contraction, lib/CMakeLists.txt). exp and
// sigmoid are vector_math.hpp's, which vectorise, not the C library's (within 1 ulp of it).
// lib/kernels/cuda/expression.cu mirrors it on the GPU.
#include <cmath>
#include <string_view>
#include <type_traits>

#include "kernels/expression.hpp"
#include "kernels/vector_math.hpp"

namespace tra::kernels::expr {

// Always inlined: the evaluator's loops (expression_eval.cpp) must see the arithmetic to vectorise
// it, and its target_clones copies do not inline an ordinary call.
template <Op op, class T>
[[gnu::always_inline]] inline T apply_op(T x, [[maybe_unused]] T y) {
    if constexpr (op == Op::Neg)
        return -x;
    else if constexpr (op == Op::Exp)
        return vmath::exp(x);
    else if constexpr (op == Op::Log)
        return std::log(x);
    else if constexpr (op == Op::Sqrt)
        return std::sqrt(x);
    else if constexpr (op == Op::Rsqrt)
        return T(1) / std::sqrt(x);
    else if constexpr (op == Op::Tanh)
        return std::tanh(x);
    else if constexpr (op == Op::Sigmoid)
        return vmath::sigmoid(x);  // the sigmoid kernel's (unary.cpp), which never overflows
    else if constexpr (op == Op::Erf)
        return std::erf(x);
    else if constexpr (op == Op::Abs)
        return std::abs(x);
    else if constexpr (op == Op::Sin)
        return std::sin(x);
    else if constexpr (op == Op::Cos)
        return std::cos(x);
    else if constexpr (op == Op::Add)
        return x + y;
    else if constexpr (op == Op::Sub)
        return x - y;
    else if constexpr (op == Op::Mul)
        return x * y;
    else if constexpr (op == Op::Div)
        return x / y;
    // NaN from either side, like numpy's maximum and minimum (scalar_ops.hpp's MaxOp, MinOp).
    else if constexpr (op == Op::Min)
        return (x < y || std::isnan(x)) ? x : y;
    else if constexpr (op == Op::Max)
        return (x > y || std::isnan(x)) ? x : y;
    else
        return std::pow(x, y);  // Op::Pow, the last
}

// Calls f(std::integral_constant<Op, op>{}) for the runtime `op`, so a loop over elements can
// be instantiated per operation with the operation inlined.
template <class F>
void with_op(Op op, F&& f) {
    switch (op) {
#define TRA_EXPR_CASE(name)                        \
    case Op::name:                                 \
        f(std::integral_constant<Op, Op::name>{}); \
        return;
        TRA_EXPR_CASE(Neg)
        TRA_EXPR_CASE(Exp)
        TRA_EXPR_CASE(Log)
        TRA_EXPR_CASE(Sqrt)
        TRA_EXPR_CASE(Rsqrt)
        TRA_EXPR_CASE(Tanh)
        TRA_EXPR_CASE(Sigmoid)
        TRA_EXPR_CASE(Erf)
        TRA_EXPR_CASE(Abs)
        TRA_EXPR_CASE(Sin)
        TRA_EXPR_CASE(Cos)
        TRA_EXPR_CASE(Add)
        TRA_EXPR_CASE(Sub)
        TRA_EXPR_CASE(Mul)
        TRA_EXPR_CASE(Div)
        TRA_EXPR_CASE(Min)
        TRA_EXPR_CASE(Max)
        TRA_EXPR_CASE(Pow)
#undef TRA_EXPR_CASE
    }
}

// op(x, y) for a runtime op (y ignored by unary ops): constant folding's entry.
template <class T>
T apply_op(Op op, T x, T y) {
    T r{};
    with_op(op, [&](auto tag) { r = apply_op<decltype(tag)::value>(x, y); });
    return r;
}

struct Function {
    std::string_view name;
    Op op;
};
inline constexpr Function kFunctions[] = {
    {"exp", Op::Exp},   {"log", Op::Log},         {"sqrt", Op::Sqrt}, {"rsqrt", Op::Rsqrt},
    {"tanh", Op::Tanh}, {"sigmoid", Op::Sigmoid}, {"erf", Op::Erf},   {"abs", Op::Abs},
    {"sin", Op::Sin},   {"cos", Op::Cos},         {"min", Op::Min},   {"max", Op::Max},
    {"pow", Op::Pow},
};

}  // namespace tra::kernels::expr
