// The expression kernels (`expr`, `expr_join`) on the GPU: an interpreter of the same compiled
// Program the CPU runs (kernels/expression.hpp), one thread per element in a grid-stride loop,
// each running every instruction on its element with the temporaries in a fixed per-thread
// array. An interpreter rather than NVRTC: no runtime compiler to ship or cache, no
// compilation latency per expression, and the program is one the CPU evaluator already checked;
// element-wise work is memory-bound, so the dispatch per instruction costs little.
#include <cstring>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_kernels.cuh"
#include "kernels/expression.hpp"

namespace tra::kernels::cuda {

namespace {

using expr::Instr;
using expr::Op;

// The program as the device reads it: constants and instructions in one device buffer.
template <class T>
struct DeviceProgram {
    const T* constants = nullptr;
    const Instr* code = nullptr;
    int instructions = 0;
    std::uint16_t inputs = 1, first_temporary = 1, result = 0;
};

// The device twin of expression_ops.hpp's apply_op: the same formulas, so GPU and CPU agree
// (rsqrt is 1 / sqrt, not the approximate rsqrt intrinsic; min and max propagate NaN).
template <class T>
__device__ T apply_op(Op op, T x, T y) {
    switch (op) {
        case Op::Neg:
            return -x;
        case Op::Exp:
            return exp(x);
        case Op::Log:
            return log(x);
        case Op::Sqrt:
            return sqrt(x);
        case Op::Rsqrt:
            return T(1) / sqrt(x);
        case Op::Tanh:
            return tanh(x);
        case Op::Sigmoid: {
            if (x >= T(0)) return T(1) / (T(1) + exp(-x));
            const T e = exp(x);
            return e / (T(1) + e);
        }
        case Op::Erf:
            return erf(x);
        case Op::Abs:
            return fabs(x);
        case Op::Sin:
            return sin(x);
        case Op::Cos:
            return cos(x);
        case Op::Add:
            return x + y;
        case Op::Sub:
            return x - y;
        case Op::Mul:
            return x * y;
        case Op::Div:
            return x / y;
        case Op::Min:
            return (x < y || isnan(x)) ? x : y;
        case Op::Max:
            return (x > y || isnan(x)) ? x : y;
        case Op::Pow:
            return pow(x, y);
    }
    return x;
}

template <class T>
__global__ void expression_kernel(DeviceProgram<T> p, const T* __restrict__ in0,
                                  const T* __restrict__ in1, T* __restrict__ out, std::int64_t n) {
    // Once per thread, not per element: every instruction writes its temporary before any
    // later one reads it, so the values never carry over between elements.
    T temporaries[expr::kMaxTemporaries] = {};
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(blockDim.x) * gridDim.x) {
        const auto load = [&](std::uint16_t slot) -> T {
            if (slot < p.inputs) return slot == 0 ? in0[i] : in1[i];
            if (slot < p.first_temporary) return p.constants[slot - p.inputs];
            return temporaries[slot - p.first_temporary];
        };
        for (int k = 0; k < p.instructions; ++k) {
            const Instr ins = p.code[k];
            const T a = load(ins.a);
            const T b = ins.op >= Op::Add ? load(ins.b) : T(0);
            temporaries[ins.dst - p.first_temporary] = apply_op(ins.op, a, b);
        }
        out[i] = load(p.result);
    }
}

template <class T>
const std::vector<T>& constants_of(const expr::Program& p) {
    if constexpr (std::is_same_v<T, float>)
        return p.constants_f32;
    else
        return p.constants;
}

}  // namespace

Kernel::Apply expression_apply(const Kernel& kernel) {
    if (kernel.name != "expr" && kernel.name != "expr_join") return {};
    const expr::Context context =
        kernel.name == "expr" ? expr::Context::Transform : expr::Context::Join;
    return [kernel, context](std::span<const Tile* const> ops, const KernelParams& params,
                             const TilePosition&) {
        // KernelCall checked the text when the call was made (Kernel::operand_count).
        const expr::Program program = expr::compile(params.expr, context).value();
        DType d;
        Tile out = device_output(kernel, ops, params, d);
        const std::int64_t n = out.elements();
        if (n == 0) return out;
        visit_dtype(d, [&](auto t) {
            using T = decltype(t);
            // Constants first (aligned for T), then the instructions, copied in one transfer;
            // the buffer is freed in stream order, after the kernel has read it.
            const std::vector<T>& constants = constants_of<T>(program);
            const std::size_t constant_bytes = constants.size() * sizeof(T);
            const std::size_t bytes = constant_bytes + program.code.size() * sizeof(Instr);
            Tile host = Tile::uninitialized(
                d, Shape{static_cast<std::int64_t>((bytes + sizeof(T) - 1) / sizeof(T))});
            auto* raw = reinterpret_cast<unsigned char*>(host.data<T>());
            if (!constants.empty()) std::memcpy(raw, constants.data(), constant_bytes);
            if (!program.code.empty())
                std::memcpy(raw + constant_bytes, program.code.data(),
                            program.code.size() * sizeof(Instr));
            const Tile device = host.to(Residence::Device);
            const auto* base = reinterpret_cast<const unsigned char*>(device.device_data<T>());
            DeviceProgram<T> g;
            g.constants = reinterpret_cast<const T*>(base);
            g.code = reinterpret_cast<const Instr*>(base + constant_bytes);
            g.instructions = static_cast<int>(program.code.size());
            g.inputs = program.inputs;
            g.first_temporary = program.first_temporary();
            g.result = program.result;
            const T* in1 = ops.size() > 1 ? ops[1]->device_data<T>() : nullptr;
            expression_kernel<<<blocks_for(n), kThreads>>>(g, ops[0]->device_data<T>(), in1,
                                                           out.device_data<T>(), n);
        });
        check_launch(kernel.name.c_str());
        return out;
    };
}

}  // namespace tra::kernels::cuda
