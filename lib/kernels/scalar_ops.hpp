#pragma once
// Internal to lib/kernels: the scalar operations shared by the elementwise kernels and einsum's
// join and aggregation, so `add` and einsum's agg=add can never disagree.
#include <cmath>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace tra::kernels::cpu {

struct AddOp {
    template <class T>
    T operator()(T a, T b) const {
        return a + b;
    }
};
struct SubOp {
    template <class T>
    T operator()(T a, T b) const {
        return a - b;
    }
};
struct MulOp {
    template <class T>
    T operator()(T a, T b) const {
        return a * b;
    }
};
struct DivOp {
    template <class T>
    T operator()(T a, T b) const {
        return a / b;
    }
};
// max and min propagate NaN from either side (like numpy's maximum), which keeps them
// commutative; std::max would answer differently depending on the operand order.
struct MaxOp {
    template <class T>
    T operator()(T a, T b) const {
        return (a > b || std::isnan(a)) ? a : b;
    }
};
struct MinOp {
    template <class T>
    T operator()(T a, T b) const {
        return (a < b || std::isnan(a)) ? a : b;
    }
};

// Calls f(op) with the functor named `name` among add, sub, mul, div, max, min; returns false
// when the name is none of them.
template <class F>
bool with_scalar_op(const std::string& name, F&& f) {
    if (name == "add") return f(AddOp{}), true;
    if (name == "sub") return f(SubOp{}), true;
    if (name == "mul") return f(MulOp{}), true;
    if (name == "div") return f(DivOp{}), true;
    if (name == "max") return f(MaxOp{}), true;
    if (name == "min") return f(MinOp{}), true;
    return false;
}

// Calls f(op) with the aggregation functor named `name` among add, mul, max, min (the
// associative and commutative ones); returns false for any other name. The loops instantiate
// one body per join and aggregation pair, so sub and div are not offered where they are invalid.
template <class F>
bool with_aggregation_op(const std::string& name, F&& f) {
    if (name == "add") return f(AddOp{}), true;
    if (name == "mul") return f(MulOp{}), true;
    if (name == "max") return f(MaxOp{}), true;
    if (name == "min") return f(MinOp{}), true;
    return false;
}

// The identity of an aggregation operator: what an empty reduction yields.
inline double aggregation_identity(const std::string& name) {
    if (name == "add") return 0.0;
    if (name == "mul") return 1.0;
    if (name == "max") return -std::numeric_limits<double>::infinity();
    if (name == "min") return std::numeric_limits<double>::infinity();
    throw Error("'" + name + "' is not an aggregation operator (add, mul, max, min)");
}

}  // namespace tra::kernels::cpu
