#pragma once
// Internal to lib/kernels/cuda: the device twins of kernels/scalar_ops.hpp, with the same NaN
// rules (max and min propagate NaN from either side), so GPU and CPU results agree.
#include <string>

namespace tra::kernels::cuda {

struct AddOp {
    template <class T>
    __device__ T operator()(T a, T b) const {
        return a + b;
    }
};
struct SubOp {
    template <class T>
    __device__ T operator()(T a, T b) const {
        return a - b;
    }
};
struct MulOp {
    template <class T>
    __device__ T operator()(T a, T b) const {
        return a * b;
    }
};
struct DivOp {
    template <class T>
    __device__ T operator()(T a, T b) const {
        return a / b;
    }
};
struct MaxOp {
    template <class T>
    __device__ T operator()(T a, T b) const {
        return (a > b || isnan(a)) ? a : b;
    }
};
struct MinOp {
    template <class T>
    __device__ T operator()(T a, T b) const {
        return (a < b || isnan(a)) ? a : b;
    }
};

// Calls f(op) with the functor named `name`; false when the name is none of them.
template <class F>
bool with_device_op(const std::string& name, F&& f) {
    if (name == "add") return f(AddOp{}), true;
    if (name == "sub") return f(SubOp{}), true;
    if (name == "mul") return f(MulOp{}), true;
    if (name == "div") return f(DivOp{}), true;
    if (name == "max") return f(MaxOp{}), true;
    if (name == "min") return f(MinOp{}), true;
    return false;
}

}  // namespace tra::kernels::cuda
