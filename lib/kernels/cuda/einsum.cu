// einsum on the GPU with the CPU kernel's index arithmetic (cpu::einsum_layout): every matrix
// product (join mul, agg add) goes to cuBLAS in one strided-batched call, operands whose labels
// are not in GEMM order permuted first and the product permuted back; everything else runs one
// thread per output element, each walking the summed labels with its own odometer.
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_expression.cuh"
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

// The odometer kernel: out[o] = agg over the summed labels of join(a, b).
Tile loop_apply(const Kernel& kernel, std::span<const Tile* const> ops, const KernelParams& p) {
    DType d;
    Tile out = device_output(kernel, ops, p, d);
    const cpu::EinsumLayout l = cpu::einsum_layout(p, cpu::shapes_of(ops));
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
        Tile program_storage;  // kept until the kernel below has read the program
        if (b && p.join_op == "expr")
            run_agg(ExpressionJoin<T>{
                upload<T>(expr::compiled(p.expr, expr::Context::Join), program_storage)});
        else if (b)
            with_device_op(p.join_op, run_agg);
        else
            run_agg(TakeFirst{});
        check_launch("einsum");
    });
    return out;
}

// `data` permuted as `view` says, into a new device buffer.
template <class T>
Tile permuted(const cpu::GemmView& view, const T* data, DType d) {
    Shape to;
    for (std::size_t dim : view.perm) to.push_back(view.from[dim]);
    Tile out = Tile::uninitialized(d, to, Residence::Device);
    permute<T>(data, view.from, view.perm, out.device_data<T>());
    return out;
}

// out = (or += when `accumulate`) a matrix product: labels summed inside one operand alone
// summed first (the loop kernel), operands out of canonical order permuted, one cuBLAS call,
// the product permuted into the output's order.
void multiply(const Kernel& kernel, const cpu::EinsumLayout& l, std::span<const Tile* const> ops,
              Tile& out, bool accumulate) {
    Tile reduced[2];
    const Tile* use[2] = {ops[0], ops[1]};
    for (int i = 0; i < 2; ++i) {
        if (l.reduce[i].empty()) continue;
        KernelParams sum;
        sum.spec = l.reduce[i];
        reduced[i] = loop_apply(kernel, std::span<const Tile* const>(&ops[i], 1), sum);
        use[i] = &reduced[i];
    }
    const cpu::GemmPlan& plan = l.plan;
    visit_dtype(out.dtype(), [&](auto t) {
        using T = decltype(t);
        const DType d = out.dtype();
        Tile pa, pb, pc;
        const T* a = use[0]->device_data<T>();
        const T* b = use[1]->device_data<T>();
        if (!plan.a.perm.empty()) pa = permuted<T>(plan.a, a, d), a = pa.device_data<T>();
        if (!plan.b.perm.empty()) pb = permuted<T>(plan.b, b, d), b = pb.device_data<T>();
        if (plan.out.perm.empty()) {
            gemm<T>(false, false, plan.m, plan.n, plan.k, a, b, out.device_data<T>(), accumulate,
                    plan.batches());
            return;
        }
        pc = Tile::uninitialized(d, plan.out.from, Residence::Device);
        gemm<T>(false, false, plan.m, plan.n, plan.k, a, b, pc.device_data<T>(), false,
                plan.batches());
        permute<T>(pc.device_data<T>(), plan.out.from, plan.out.perm, out.device_data<T>(),
                   accumulate);
    });
}

}  // namespace

Kernel::Apply einsum_apply(const Kernel& kernel) {
    if (kernel.name != "einsum") return {};
    return [kernel](std::span<const Tile* const> ops, const KernelParams& p, const TilePosition&) {
        const cpu::EinsumLayout l = cpu::einsum_layout(p, cpu::shapes_of(ops));
        if (!l.gemm) return loop_apply(kernel, ops, p);
        DType d;
        Tile out = device_output(kernel, ops, p, d);
        multiply(kernel, l, ops, out, false);
        return out;
    };
}

Kernel::Accumulate einsum_accumulate(const Kernel& kernel) {
    if (kernel.name != "einsum") return {};
    // Matrix products only (as on the CPU): acc += product is gemm with beta = 1.
    return [kernel](Tile& acc, std::span<const Tile* const> ops, const KernelParams& p) {
        const cpu::EinsumLayout l = cpu::einsum_layout(p, cpu::shapes_of(ops));
        if (!l.gemm || l.shape != acc.shape()) return false;
        cpu::common_dtype("einsum", ops);
        multiply(kernel, l, ops, acc, true);
        return true;
    };
}

}  // namespace tra::kernels::cuda
