// The expression evaluator: runs a Program over blocks of kBlock elements, one instruction at a
// time, each a loop over the block with the operation inlined (expression_ops.hpp), so the
// interpretation costs one dispatch per instruction and block, not per element.
#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "kernels/expression_ops.hpp"

namespace tra::kernels::expr {
namespace {

// Elements per block: the temporaries of a block (at most kMaxTemporaries of them) stay in L1.
constexpr std::int64_t kBlock = 256;

template <class T>
const std::vector<T>& constants_of(const Program& p) {
    if constexpr (std::is_same_v<T, float>)
        return p.constants_f32;
    else
        return p.constants;
}

// d = op(a) or op(a, b) over m elements; a constant operand is one scalar (stride 0). d never
// aliases a or b (the compiler gives every result its own temporary). Compiled per instruction
// set (TRA_VECTOR_CLONES) so that GCC vectorises each loop with the widest vectors the CPU has.
template <Op op, class T>
TRA_VECTOR_CLONES void run(T* __restrict d, const T* a, bool a_scalar, const T* b, bool b_scalar,
                           std::int64_t m) {
    if constexpr (!is_binary(op)) {
        for (std::int64_t i = 0; i < m; ++i) d[i] = apply_op<op>(a[i], T(0));
    } else if (a_scalar) {
        const T s = *a;
        for (std::int64_t i = 0; i < m; ++i) d[i] = apply_op<op>(s, b[i]);
    } else if (b_scalar) {
        const T s = *b;
        for (std::int64_t i = 0; i < m; ++i) d[i] = apply_op<op>(a[i], s);
    } else {
        for (std::int64_t i = 0; i < m; ++i) d[i] = apply_op<op>(a[i], b[i]);
    }
}

}  // namespace

template <class T>
void evaluate(const Program& p, std::span<const T* const> inputs, T* out, std::int64_t n) {
    if (inputs.size() != p.inputs)
        throw Error("expression \"" + p.text + "\" takes " + std::to_string(p.inputs) +
                        " inputs, got " + std::to_string(inputs.size()),
                    {}, ErrorKind::Failed);
    if (n <= 0) return;
    const std::vector<T>& constants = constants_of<T>(p);
    const std::uint16_t first_temporary = p.first_temporary();
    // A whole-expression input or constant: nothing to compute.
    if (p.result < first_temporary) {
        if (p.is_constant(p.result))
            std::fill(out, out + n, constants[p.result - p.inputs]);
        else
            std::copy(inputs[p.result], inputs[p.result] + n, out);
        return;
    }
    // Where each slot's values start in the current block; the only allocations of the call.
    std::vector<T> scratch(static_cast<std::size_t>(p.temporaries * kBlock));
    std::vector<const T*> slot(p.slots());
    for (std::size_t k = 0; k < constants.size(); ++k) slot[p.inputs + k] = &constants[k];
    for (std::size_t t = 0; t < p.temporaries; ++t)
        slot[first_temporary + t] = scratch.data() + t * kBlock;
    for (std::int64_t begin = 0; begin < n; begin += kBlock) {
        const std::int64_t m = std::min(kBlock, n - begin);
        for (std::size_t i = 0; i < p.inputs; ++i) slot[i] = inputs[i] + begin;
        // The result's temporary is written by the last instruction alone: straight to out.
        slot[p.result] = out + begin;
        for (const Instr& ins : p.code) {
            // Every dst is a temporary (or out): scratch or output memory, never an input.
            T* d = const_cast<T*>(slot[ins.dst]);
            with_op(ins.op, [&](auto tag) {
                run<decltype(tag)::value>(d, slot[ins.a], p.is_constant(ins.a), slot[ins.b],
                                          p.is_constant(ins.b), m);
            });
        }
    }
}

template void evaluate<float>(const Program&, std::span<const float* const>, float*, std::int64_t);
template void evaluate<double>(const Program&, std::span<const double* const>, double*,
                               std::int64_t);

}  // namespace tra::kernels::expr
