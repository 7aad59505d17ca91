// diagonal on the GPU: one thread per output element, reading the input at the offset the CPU
// kernel's layout gives (cpu::diagonal_layout), so both devices pick the same elements.
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_kernels.cuh"

namespace tra::kernels::cuda {

namespace {

constexpr int kMaxLabels = 26;  // labels are single lowercase letters

// The layout by value, so it travels as a kernel argument.
struct Diagonal {
    int rank = 0;
    std::int64_t extents[kMaxLabels] = {}, strides[kMaxLabels] = {};
};

template <class T>
__global__ void diagonal_kernel(Diagonal g, const T* in, T* out, std::int64_t n) {
    for (std::int64_t o = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; o < n;
         o += std::int64_t(blockDim.x) * gridDim.x) {
        std::int64_t rest = o, from = 0;
        for (int d = g.rank; d-- > 0;) {
            from += (rest % g.extents[d]) * g.strides[d];
            rest /= g.extents[d];
        }
        out[o] = in[from];
    }
}

}  // namespace

Kernel::Apply diagonal_apply(const Kernel& kernel) {
    if (kernel.name != "diagonal") return {};
    return [kernel](std::span<const Tile* const> ops, const KernelParams& p, const TilePosition&) {
        DType d;
        Tile out = device_output(kernel, ops, p, d);
        const cpu::DiagonalLayout l = cpu::diagonal_layout(p, ops[0]->shape());
        Diagonal g;
        g.rank = static_cast<int>(l.shape.size());
        for (int i = 0; i < g.rank; ++i) {
            g.extents[i] = l.shape[i];
            g.strides[i] = l.strides[i];
        }
        const std::int64_t n = out.elements();
        if (n == 0) return out;
        visit_dtype(d, [&](auto t) {
            using T = decltype(t);
            diagonal_kernel<<<blocks_for(n), kThreads>>>(g, ops[0]->device_data<T>(),
                                                         out.device_data<T>(), n);
        });
        check_launch("diagonal");
        return out;
    };
}

}  // namespace tra::kernels::cuda
