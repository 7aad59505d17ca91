// The expression kernels (`expr`, `expr_join`) on the GPU: an interpreter of the same compiled
// Program the CPU runs (kernels/expression.hpp), one thread per element in a grid-stride loop,
// each running every instruction on its element with the temporaries in a fixed per-thread
// array. An interpreter rather than NVRTC: no runtime compiler to ship or cache, no
// compilation latency per expression, and the program is one the CPU evaluator already checked;
// element-wise work is memory-bound, so the dispatch per instruction costs little.
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_expression.cuh"
#include "kernels/cuda/device_kernels.cuh"

namespace tra::kernels::cuda {

namespace {

template <class T>
__global__ void expression_kernel(DeviceProgram<T> p, const T* __restrict__ in0,
                                  const T* __restrict__ in1, T* __restrict__ out, std::int64_t n) {
    // Once per thread, not per element: every instruction writes its temporary before any
    // later one reads it, so the values never carry over between elements.
    T temporaries[expr::kMaxTemporaries] = {};
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(blockDim.x) * gridDim.x)
        out[i] = run_program(p, in0[i], in1 ? in1[i] : T(0), temporaries);
}

}  // namespace

Kernel::Apply expression_apply(const Kernel& kernel) {
    if (kernel.name != "expr" && kernel.name != "expr_join") return {};
    const expr::Context context =
        kernel.name == "expr" ? expr::Context::Transform : expr::Context::Join;
    return [kernel, context](std::span<const Tile* const> ops, const KernelParams& params,
                             const TilePosition&) {
        // KernelCall checked the text when the call was made (Kernel::operand_count).
        const expr::Program& program = expr::compiled(params.expr, context);
        DType d;
        Tile out = device_output(kernel, ops, params, d);
        const std::int64_t n = out.elements();
        if (n == 0) return out;
        visit_dtype(d, [&](auto t) {
            using T = decltype(t);
            Tile storage;
            const DeviceProgram<T> g = upload<T>(program, storage);
            const T* in1 = ops.size() > 1 ? ops[1]->device_data<T>() : nullptr;
            expression_kernel<<<blocks_for(n), kThreads>>>(g, ops[0]->device_data<T>(), in1,
                                                           out.device_data<T>(), n);
        });
        check_launch(kernel.name.c_str());
        return out;
    };
}

}  // namespace tra::kernels::cuda
