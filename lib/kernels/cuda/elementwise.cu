// Element-by-element kernels on the GPU: the binary ones (add ... min), sub_row, and the maps
// (scale, the activations and the named scalar functions). One grid-stride loop each.
#include <utility>

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
enum class Map {
    Scale,
    Relu,
    ReluGrad,
    Sigmoid,
    Tanh,
    Exp,
    Log,
    Sqrt,
    Rsqrt,
    Square,
    Abs,
    Neg,
    Reciprocal,
    Gelu,
    GeluTanh,
    Silu,
    Softplus,
    Sin,
    Cos
};

// Split by sign so exp never overflows, as the CPU kernel does.
template <class T>
__device__ T sigmoid(T x) {
    if (x >= T(0)) return T(1) / (T(1) + exp(-x));
    T e = exp(x);
    return e / (T(1) + e);
}

// The formulas are the CPU kernels' (lib/kernels/unary.cpp says why each is written so).
template <class T>
__device__ T map_one(Map m, T x, T factor) {
    switch (m) {
        case Map::Scale:
            return x * factor;
        case Map::Relu:
            return x > T(0) ? x : T(0);
        case Map::ReluGrad:
            return x > T(0) ? T(1) : T(0);
        case Map::Sigmoid:
            return sigmoid(x);
        case Map::Tanh:
            return tanh(x);
        case Map::Exp:
            return exp(x);
        case Map::Log:
            return log(x);
        case Map::Sqrt:
            return sqrt(x);
        case Map::Rsqrt:
            // 1 / sqrt, not CUDA's rsqrt, whose last bits differ from the CPU's.
            return T(1) / sqrt(x);
        case Map::Square:
            return x * x;
        case Map::Abs:
            return fabs(x);
        case Map::Neg:
            return -x;
        case Map::Reciprocal:
            return T(1) / x;
        case Map::Gelu:
            return T(0.5) * x * erfc(-x * T(0.70710678118654752440));
        case Map::GeluTanh: {
            const T u = T(0.79788456080286535588) * (x + T(0.044715) * x * x * x);
            return x * sigmoid(T(2) * u);
        }
        case Map::Silu:
            return x * sigmoid(x);
        case Map::Softplus:
            return log1p(exp(-fabs(x))) + (x > T(0) ? x : T(0));
        case Map::Sin:
            return sin(x);
        case Map::Cos:
            return cos(x);
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
    static const std::pair<const char*, Map> kMaps[] = {
        {"scale", Map::Scale},
        {"relu", Map::Relu},
        {"relu_grad", Map::ReluGrad},
        {"sigmoid", Map::Sigmoid},
        {"tanh", Map::Tanh},
        {"exp", Map::Exp},
        {"log", Map::Log},
        {"sqrt", Map::Sqrt},
        {"rsqrt", Map::Rsqrt},
        {"square", Map::Square},
        {"abs", Map::Abs},
        {"neg", Map::Neg},
        {"reciprocal", Map::Reciprocal},
        {"gelu", Map::Gelu},
        {"gelu_tanh", Map::GeluTanh},
        {"silu", Map::Silu},
        {"softplus", Map::Softplus},
        {"sin", Map::Sin},
        {"cos", Map::Cos},
    };
    for (const auto& [n, map] : kMaps)
        if (name == n) {
            m = map;
            return true;
        }
    return false;
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
