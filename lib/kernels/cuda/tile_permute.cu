// The GPU side of tile_permute.hpp: one thread per output element, which unravels its index
// and reads the input at the permuted strides, so writes coalesce and reads gather (the cache
// catches the gathers' neighbours; operands of a contraction are small next to its product).
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_kernels.cuh"

namespace tra::kernels::cuda {

namespace {

constexpr int kMaxRank = 26;  // einsum labels are single lowercase letters

// The output's extents and the input stride of each output dimension, by value so it travels
// as a kernel argument.
struct Walk {
    int rank = 0;
    std::int64_t extent[kMaxRank] = {}, from[kMaxRank] = {};
};

template <class T>
__global__ void permute_kernel(Walk w, const T* in, T* out, std::int64_t n, bool accumulate) {
    for (std::int64_t o = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; o < n;
         o += std::int64_t(blockDim.x) * gridDim.x) {
        std::int64_t rest = o, from = 0;
        for (int d = w.rank; d-- > 0;) {
            from += (rest % w.extent[d]) * w.from[d];
            rest /= w.extent[d];
        }
        out[o] = accumulate ? out[o] + in[from] : in[from];
    }
}

}  // namespace

template <class T>
void permute(const T* in, const Shape& shape, std::span<const std::size_t> perm, T* out,
             bool accumulate) {
    const std::size_t rank = shape.size();
    if (perm.size() != rank || rank > kMaxRank) throw Error("permute: perm has the wrong rank");
    const std::int64_t n = shape.product();
    if (n == 0) return;
    std::int64_t stride[kMaxRank];
    for (std::size_t d = rank, s = 1; d-- > 0;) {
        stride[d] = static_cast<std::int64_t>(s);
        s *= static_cast<std::size_t>(shape[d]);
    }
    Walk w;
    w.rank = static_cast<int>(rank);
    for (std::size_t d = 0; d < rank; ++d) {
        w.extent[d] = shape[perm[d]];
        w.from[d] = stride[perm[d]];
    }
    permute_kernel<<<blocks_for(n), kThreads>>>(w, in, out, n, accumulate);
    check_launch("permute");
}

template void permute<float>(const float*, const Shape&, std::span<const std::size_t>, float*,
                             bool);
template void permute<double>(const double*, const Shape&, std::span<const std::size_t>, double*,
                              bool);

}  // namespace tra::kernels::cuda
