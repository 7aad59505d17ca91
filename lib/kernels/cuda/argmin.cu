// argmin and min_index on the GPU. argmin finds the local position with one block (a tile is
// small next to a GPU, and one block needs no second pass); the global index is then computed
// on the host by the CPU kernel's own function, so both report the same index and refuse the
// same inexact f32 indices.
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_kernels.cuh"

namespace tra::kernels::cuda {

namespace {

// The CPU kernel's order (argmin.cpp): NaN sorts above every number, ties go to the lower index.
template <class T>
__device__ bool pair_before(T va, T ia, T vb, T ib) {
    bool na = isnan(va), nb = isnan(vb);
    if (na != nb) return nb;
    if (!na && va != vb) return va < vb;
    return ia <= ib;
}

template <class T>
__global__ void argmin_kernel(const T* x, std::int64_t n, T* value, std::int64_t* index) {
    __shared__ std::int64_t best[kThreads];
    std::int64_t mine = threadIdx.x < n ? threadIdx.x : 0;
    for (std::int64_t i = threadIdx.x + blockDim.x; i < n; i += blockDim.x)
        if (!pair_before<T>(x[mine], T(0), x[i], T(1))) mine = i;
    best[threadIdx.x] = mine;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            std::int64_t a = best[threadIdx.x], b = best[threadIdx.x + half];
            // Indices stand in for themselves here: exact in int64, compared as such.
            bool a_first = isnan(x[a]) != isnan(x[b])       ? isnan(x[b])
                           : (!isnan(x[a]) && x[a] != x[b]) ? x[a] < x[b]
                                                            : a <= b;
            best[threadIdx.x] = a_first ? a : b;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        *value = x[best[0]];
        *index = best[0];
    }
}

template <class T>
__global__ void min_index_kernel(const T* a, const T* b, T* out) {
    const T* w = pair_before<T>(a[0], a[1], b[0], b[1]) ? a : b;
    out[0] = w[0];
    out[1] = w[1];
}

}  // namespace

Kernel::Apply argmin_apply(const Kernel& kernel) {
    if (kernel.name == "min_index")
        return
            [kernel](std::span<const Tile* const> ops, const KernelParams& p, const TilePosition&) {
                DType d;
                Tile out = device_output(kernel, ops, p, d);
                visit_dtype(d, [&](auto t) {
                    using T = decltype(t);
                    min_index_kernel<<<1, 1>>>(ops[0]->device_data<T>(), ops[1]->device_data<T>(),
                                               out.device_data<T>());
                });
                check_launch("min_index");
                return out;
            };
    if (kernel.name != "argmin") return {};
    return [kernel](std::span<const Tile* const> ops, const KernelParams& p,
                    const TilePosition& where) {
        DType d;
        Tile out = device_output(kernel, ops, p, d);
        const Tile& in = *ops[0];
        if (in.elements() == 0) throw Error("argmin: the tile " + in.shape().str() + " is empty");
        DeviceMemory& memory = device_memory();
        auto* local = static_cast<std::int64_t*>(memory.allocate(sizeof(std::int64_t)));
        std::int64_t best = 0;
        try {
            visit_dtype(d, [&](auto t) {
                using T = decltype(t);
                argmin_kernel<<<1, kThreads>>>(in.device_data<T>(), in.elements(),
                                               out.device_data<T>(), local);
                check_launch("argmin");
                memory.copy(&best, local, sizeof best);
                const T global = cpu::argmin_global_index<T>(in.shape(), where, best);
                memory.copy(out.device_data<T>() + 1, &global, sizeof global);
            });
        } catch (...) {
            memory.release(local);
            throw;
        }
        memory.release(local);
        return out;
    };
}

}  // namespace tra::kernels::cuda
