// libFuzzer target for element-wise expressions (lib/kernels/expression*): the first byte picks
// the context (even: a transform in x, odd: a join in a and b), the rest is the text. Every
// input must compile or be refused as a value whose column lies within the text; a compiled
// program must keep the invariants the evaluators rely on, and is then evaluated in f32 and
// f64 on values that reach every edge (NaN, infinities, zeros, negatives) over more than one
// block. Any exception, crash, sanitizer finding or hang is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "kernels/expression.hpp"

namespace {

using namespace tra::kernels::expr;

void require(bool condition) {
    if (!condition) std::abort();
}

// The evaluators index slots and temporaries without checks: these are their preconditions.
void check_invariants(const Program& p) {
    require(p.constants.size() == p.constants_f32.size());
    require(p.temporaries <= kMaxTemporaries);
    require(p.result < p.slots());
    const std::uint16_t first = p.first_temporary();
    for (std::size_t k = 0; k < p.code.size(); ++k) {
        const Instr& ins = p.code[k];
        require(ins.dst >= first && ins.dst < p.slots());
        require(ins.a < p.slots() && ins.b < p.slots());
        require(ins.dst != ins.a && (!is_binary(ins.op) || ins.dst != ins.b));
        require(!(p.is_constant(ins.a) && p.is_constant(ins.b)) || !is_binary(ins.op));
        // Only the last instruction writes the result's temporary.
        require((ins.dst == p.result) == (k + 1 == p.code.size()));
    }
    if (p.code.empty()) require(p.result < first);
}

template <class T>
void run(const Program& p) {
    const T inf = std::numeric_limits<T>::infinity();
    const T edges[] = {T(0),
                       -T(0),
                       T(1),
                       T(-1),
                       T(0.5),
                       T(-2.5),
                       T(1e30),
                       inf,
                       -inf,
                       std::numeric_limits<T>::quiet_NaN(),
                       std::numeric_limits<T>::denorm_min()};
    constexpr std::size_t kN = 300;  // past one block of the evaluator
    std::vector<T> a(kN), b(kN), out(kN);
    for (std::size_t i = 0; i < kN; ++i) {
        a[i] = edges[i % std::size(edges)];
        b[i] = edges[(i / std::size(edges)) % std::size(edges)];
    }
    const T* inputs[2] = {a.data(), b.data()};
    evaluate<T>(p, std::span<const T* const>(inputs, p.inputs), out.data(),
                static_cast<std::int64_t>(kN));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const Context context = data[0] % 2 == 0 ? Context::Transform : Context::Join;
    const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    const tra::Checked<Program> p = compile(text, context);
    if (!p.ok()) {
        const int column = p.problem().where().column;
        require(column >= 1 && static_cast<std::size_t>(column) <= text.size() + 1);
        require(p.problem().message().rfind("column " + std::to_string(column) + " of ", 0) == 0);
        return 0;
    }
    check_invariants(*p);
    run<float>(*p);
    run<double>(*p);
    return 0;
}
