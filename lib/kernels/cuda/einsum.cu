// einsum on the GPU with the CPU kernel's index arithmetic (cpu::einsum_layout): matrix products
// (batched or not, up to transposes, as the CPU finds them) go to cuBLAS in one call; everything
// else runs one thread per output element, each walking the summed labels with its own odometer.
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_kernels.cuh"
#include "kernels/cuda/device_scalar_ops.cuh"
#include "kernels/scalar_ops.hpp"

namespace tra::kernels::cuda {

namespace {

constexpr int kMaxLabels = 26;  // labels are single lowercase letters

// The layout by value, so it travels as a kernel argument.
struct Contraction {
    int labels = 0, output_labels = 0;
    std::int64_t extents[kMaxLabels] = {}, sa[kMaxLabels] = {}, sb[kMaxLabels] = {};
};

struct TakeFirst {
    template <class T>
    __device__ T operator()(T a, T) const {
        return a;
    }
};

template <class T, class Join, class Agg>
__global__ void contract_kernel(Contraction c, const T* a, const T* b, T* out, std::int64_t n,
                                T identity, Join join, Agg agg) {
    for (std::int64_t o = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; o < n;
         o += std::int64_t(blockDim.x) * gridDim.x) {
        // Output labels come first and the output is row-major in them.
        std::int64_t rest = o, oa = 0, ob = 0;
        for (int d = c.output_labels; d-- > 0;) {
            const std::int64_t i = rest % c.extents[d];
            rest /= c.extents[d];
            oa += i * c.sa[d], ob += i * c.sb[d];
        }
        T acc = identity;
        std::int64_t idx[kMaxLabels] = {};
        bool empty = false;
        for (int d = c.output_labels; d < c.labels; ++d) empty = empty || c.extents[d] == 0;
        while (!empty) {
            acc = agg(acc, join(a[oa], b ? b[ob] : T(0)));
            int d = c.labels;
            for (; d-- > c.output_labels;) {
                oa += c.sa[d], ob += c.sb[d];
                if (++idx[d] < c.extents[d]) break;
                oa -= c.sa[d] * idx[d], ob -= c.sb[d] * idx[d];
                idx[d] = 0;
            }
            if (d < c.output_labels) break;
        }
        out[o] = acc;
    }
}

Contraction contraction_of(const cpu::EinsumLayout& l) {
    Contraction c;
    c.labels = static_cast<int>(l.extents.size());
    c.output_labels = static_cast<int>(l.output_labels);
    for (int d = 0; d < c.labels; ++d) {
        c.extents[d] = l.extents[d];
        c.sa[d] = l.strides_a[d];
        c.sb[d] = l.strides_b[d];
    }
    return c;
}

// out = (or +=) the layout's matrix products, one cuBLAS call for all batches.
void multiply(const cpu::EinsumLayout& l, std::span<const Tile* const> ops, Tile& out,
              bool accumulate) {
    const Tile& left = *ops[l.swap ? 1 : 0];
    const Tile& right = *ops[l.swap ? 0 : 1];
    visit_dtype(out.dtype(), [&](auto t) {
        using T = decltype(t);
        gemm<T>(l.trans_l, l.trans_r, l.m, l.n, l.inner, left.device_data<T>(),
                right.device_data<T>(), out.device_data<T>(), accumulate, l.batch);
    });
}

}  // namespace

Kernel::Apply einsum_apply(const Kernel& kernel) {
    if (kernel.name != "einsum") return {};
    return [kernel](std::span<const Tile* const> ops, const KernelParams& p, const TilePosition&) {
        DType d;
        Tile out = device_output(kernel, ops, p, d);
        const std::vector<Shape> shapes = cpu::shapes_of(ops);
        const cpu::EinsumLayout l = cpu::einsum_layout(p, shapes);
        if (l.gemm) {
            multiply(l, ops, out, false);
            return out;
        }
        const std::int64_t n = out.elements();
        if (n == 0) return out;
        visit_dtype(d, [&](auto t) {
            using T = decltype(t);
            const Contraction c = contraction_of(l);
            const T* a = ops[0]->device_data<T>();
            const T* b = ops.size() > 1 ? ops[1]->device_data<T>() : nullptr;
            const T identity = static_cast<T>(cpu::aggregation_identity(p.agg_op));
            auto run_agg = [&](auto join) {
                with_device_op(p.agg_op, [&](auto agg) {
                    contract_kernel<<<blocks_for(n), kThreads>>>(c, a, b, out.device_data<T>(), n,
                                                                 identity, join, agg);
                });
            };
            if (b)
                with_device_op(p.join_op, run_agg);
            else
                run_agg(TakeFirst{});
            check_launch("einsum");
        });
        return out;
    };
}

Kernel::Accumulate einsum_accumulate(const Kernel& kernel) {
    if (kernel.name != "einsum") return {};
    // Matrix products only (as on the CPU): acc += product is gemm with beta = 1.
    return [](Tile& acc, std::span<const Tile* const> ops, const KernelParams& p) {
        const cpu::EinsumLayout l = cpu::einsum_layout(p, cpu::shapes_of(ops));
        if (!l.gemm || l.shape != acc.shape()) return false;
        multiply(l, ops, acc, true);
        return true;
    };
}

}  // namespace tra::kernels::cuda
