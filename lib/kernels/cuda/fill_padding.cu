// fill_padding on the GPU: one thread per element, copying the input or writing the value past
// the extent; where that starts in the tile comes from the CPU kernel's parameters
// (cpu::PaddingFill), so both devices fill the same entries.
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_kernels.cuh"

namespace tra::kernels::cuda {

namespace {

// The tile as outer x along x inner around the filled dimension: entries whose index along it
// is `from` or more take `value`.
template <class T>
__global__ void fill_padding_kernel(const T* in, T* out, std::int64_t n, std::int64_t along,
                                    std::int64_t inner, std::int64_t from, T value) {
    for (std::int64_t o = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; o < n;
         o += std::int64_t(blockDim.x) * gridDim.x)
        out[o] = (o / inner) % along >= from ? value : in[o];
}

}  // namespace

Kernel::Apply fill_padding_apply(const Kernel& kernel) {
    if (kernel.name != "fill_padding") return {};
    return [kernel](std::span<const Tile* const> ops, const KernelParams& p,
                    const TilePosition& where) {
        DType d;
        Tile out = device_output(kernel, ops, p, d);  // checks the parameters, as on the CPU
        const cpu::PaddingFill f = *cpu::parse_padding_fill(p);
        const Shape& shape = ops[0]->shape();
        const std::int64_t from = f.first_padded(shape, where);
        std::int64_t inner = 1;
        for (std::size_t i = static_cast<std::size_t>(f.dim) + 1; i < shape.size(); ++i)
            inner *= shape[i];
        const std::int64_t n = out.elements();
        if (n == 0) return out;
        visit_dtype(d, [&](auto t) {
            using T = decltype(t);
            fill_padding_kernel<<<blocks_for(n), kThreads>>>(ops[0]->device_data<T>(),
                                                             out.device_data<T>(), n, shape[f.dim],
                                                             inner, from, static_cast<T>(f.value));
        });
        check_launch("fill_padding");
        return out;
    };
}

}  // namespace tra::kernels::cuda
