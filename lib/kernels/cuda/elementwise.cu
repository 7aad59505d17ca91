// Element-by-element kernels on the GPU: the binary ones (add ... min), sub_row, and the maps
// (scale and the activations). One grid-stride loop each.
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_kernels.cuh"
#include "kernels/cuda/device_scalar_ops.cuh"

namespace tra::kernels::cuda {

namespace {

template <class T, class Op>
__global__ void binary_kernel(const T* a, const T* b, T* c, std::int64_t n, Op op) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(blockDim.x) * gridDim.x)
        c[i] = op(a[i], b[i]);
}

template <class T>
__global__ void sub_row_kernel(const T* a, const T* v, T* c, std::int64_t n, std::int64_t cols) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(blockDim.x) * gridDim.x)
        c[i] = a[i] - v[i % cols];
}

// The maps, numbered so one kernel serves them all.
enum class Map { Scale, Relu, ReluGrad, Sigmoid, Tanh, Exp, Log };

template <class T>
__device__ T map_one(Map m, T x, T factor) {
    switch (m) {
        case Map::Scale:
            return x * factor;
        case Map::Relu:
            return x > T(0) ? x : T(0);
        case Map::ReluGrad:
            return x > T(0) ? T(1) : T(0);
        case Map::Sigmoid: {
            // Split by sign so exp never overflows, as the CPU kernel does.
            if (x >= T(0)) return T(1) / (T(1) + exp(-x));
            T e = exp(x);
            return e / (T(1) + e);
        }
        case Map::Tanh:
            return tanh(x);
        case Map::Exp:
            return exp(x);
        case Map::Log:
            return log(x);
    }
    return x;
}

template <class T>
__global__ void map_kernel(Map m, const T* a, T* c, std::int64_t n, T factor) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(blockDim.x) * gridDim.x)
        c[i] = map_one(m, a[i], factor);
}

bool map_of(const std::string& name, Map& m) {
    if (name == "scale")
        m = Map::Scale;
    else if (name == "relu")
        m = Map::Relu;
    else if (name == "relu_grad")
        m = Map::ReluGrad;
    else if (name == "sigmoid")
        m = Map::Sigmoid;
    else if (name == "tanh")
        m = Map::Tanh;
    else if (name == "exp")
        m = Map::Exp;
    else if (name == "log")
        m = Map::Log;
    else
        return false;
    return true;
}

}  // namespace

Kernel::Apply elementwise_apply(const Kernel& kernel) {
    const std::string& name = kernel.name;
    if (with_device_op(name, [](auto) {}))
        return
            [kernel](std::span<const Tile* const> ops, const KernelParams& p, const TilePosition&) {
                DType d;
                Tile out = device_output(kernel, ops, p, d);
                const std::int64_t n = out.elements();
                visit_dtype(d, [&](auto t) {
                    using T = decltype(t);
                    with_device_op(kernel.name, [&](auto op) {
                        binary_kernel<<<blocks_for(n), kThreads>>>(ops[0]->device_data<T>(),
                                                                   ops[1]->device_data<T>(),
                                                                   out.device_data<T>(), n, op);
                    });
                });
                check_launch(kernel.name.c_str());
                return out;
            };
    if (name == "sub_row")
        return
            [kernel](std::span<const Tile* const> ops, const KernelParams& p, const TilePosition&) {
                DType d;
                Tile out = device_output(kernel, ops, p, d);
                const std::int64_t n = out.elements();
                if (n == 0) return out;
                visit_dtype(d, [&](auto t) {
                    using T = decltype(t);
                    sub_row_kernel<<<blocks_for(n), kThreads>>>(
                        ops[0]->device_data<T>(), ops[1]->device_data<T>(), out.device_data<T>(), n,
                        out.shape()[1]);
                });
                check_launch("sub_row");
                return out;
            };
    Map m;
    if (!map_of(name, m)) return {};
    return
        [kernel, m](std::span<const Tile* const> ops, const KernelParams& p, const TilePosition&) {
            DType d;
            Tile out = device_output(kernel, ops, p, d);
            const std::int64_t n = out.elements();
            visit_dtype(d, [&](auto t) {
                using T = decltype(t);
                map_kernel<<<blocks_for(n), kThreads>>>(m, ops[0]->device_data<T>(),
                                                        out.device_data<T>(), n,
                                                        static_cast<T>(p.factor.value_or(1.0)));
            });
            check_launch(kernel.name.c_str());
            return out;
        };
}

}  // namespace tra::kernels::cuda
