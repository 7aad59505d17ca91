#pragma once
// Internal to lib/kernels/cuda: a compiled expression (kernels/expression.hpp) on the device, for
// the expression kernels (expression.cu) and einsum's expression joins (einsum.cu): the same
// Program the CPU runs, interpreted one element at a time with the temporaries in a fixed
// per-thread array.
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/tile.hpp"
#include "kernels/expression.hpp"

namespace tra::kernels::cuda {

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
const std::vector<T>& constants_of(const expr::Program& p) {
    if constexpr (std::is_same_v<T, float>)
        return p.constants_f32;
    else
        return p.constants;
}

// The program on one element: in0 is x or a, in1 is b (unused for x). `temporaries` holds
// expr::kMaxTemporaries values; every instruction writes its temporary before a later one reads
// it, so nothing carries over between elements.
template <class T>
__device__ T run_program(const DeviceProgram<T>& p, T in0, T in1, T* temporaries) {
    const auto load = [&](std::uint16_t slot) -> T {
        if (slot < p.inputs) return slot == 0 ? in0 : in1;
        if (slot < p.first_temporary) return p.constants[slot - p.inputs];
        return temporaries[slot - p.first_temporary];
    };
    for (int k = 0; k < p.instructions; ++k) {
        const Instr ins = p.code[k];
        const T a = load(ins.a);
        const T b = ins.op >= Op::Add ? load(ins.b) : T(0);
        temporaries[ins.dst - p.first_temporary] = apply_op(ins.op, a, b);
    }
    return load(p.result);
}

// The program's constants (in T) and instructions copied to the device in one transfer, into
// `storage`, which must outlive every kernel reading the returned view (a device tile is freed
// in stream order, after the kernels queued before).
template <class T>
DeviceProgram<T> upload(const expr::Program& program, Tile& storage) {
    const DType d = std::is_same_v<T, float> ? DType::F32 : DType::F64;
    // Constants first (aligned for T), then the instructions.
    const std::vector<T>& constants = constants_of<T>(program);
    const std::size_t constant_bytes = constants.size() * sizeof(T);
    const std::size_t bytes = constant_bytes + program.code.size() * sizeof(Instr);
    Tile host = Tile::uninitialized(
        d, Shape{static_cast<std::int64_t>((bytes + sizeof(T) - 1) / sizeof(T))});
    auto* raw = reinterpret_cast<unsigned char*>(host.data<T>());
    if (!constants.empty()) std::memcpy(raw, constants.data(), constant_bytes);
    if (!program.code.empty())
        std::memcpy(raw + constant_bytes, program.code.data(), program.code.size() * sizeof(Instr));
    storage = host.to(Residence::Device);
    const auto* base = reinterpret_cast<const unsigned char*>(storage.device_data<T>());
    DeviceProgram<T> g;
    g.constants = reinterpret_cast<const T*>(base);
    g.code = reinterpret_cast<const Instr*>(base + constant_bytes);
    g.instructions = static_cast<int>(program.code.size());
    g.inputs = program.inputs;
    g.first_temporary = program.first_temporary();
    g.result = program.result;
    return g;
}

// An einsum join by expression (variables a and b), as einsum's loop kernel calls its joins.
template <class T>
struct ExpressionJoin {
    DeviceProgram<T> program;
    __device__ T operator()(T a, T b) const {
        T temporaries[expr::kMaxTemporaries];
        return run_program(program, a, b, temporaries);
    }
};

}  // namespace tra::kernels::cuda
