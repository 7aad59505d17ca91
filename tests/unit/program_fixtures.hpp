#pragma once
// Small pieces for building typed programs in tests without a workflow file.
#include <cstdint>
#include <initializer_list>
#include <string>

#include "storage/generator.hpp"
#include "tra/program_builder.hpp"

namespace tra::testing {

// Where a test's step "was written": a fixed file and line, named after the step.
inline StepSource at(const std::string& step) {
    StepSource s;
    s.step = SourceLocation{"t.yaml", 1, 1, step};
    return s;
}

// An input made by the default generator: tests that only plan never read its values.
inline InputSource generated() {
    InputSource s;
    s.generate = storage::GeneratorSpec{};
    return s;
}

inline KeySet keys(std::initializer_list<Key> ks) {
    KeySet s;
    for (const Key& k : ks) s.insert(k);
    return s;
}

inline std::string describe(const KeySet& s) {
    std::string out;
    for (const Key& k : s) out += k.str() + " ";
    return out;
}

// C = A B with A an I x K and B a K x J grid of 2x2 f64 tiles (kTile bytes, 4 elements each);
// with L > 0 also CE = C E, E a J x L grid, which is then the output instead of C.
constexpr std::int64_t kTile = 32;
inline Program tiled_matmul(std::int64_t I, std::int64_t K, std::int64_t J, std::int64_t L = 0) {
    ProgramBuilder b("mm", DType::F64);
    b.add_input("A", Shape{2 * I, 2 * K}, Shape{2, 2}, DType::F64, generated(), at("A"));
    b.add_input("B", Shape{2 * K, 2 * J}, Shape{2, 2}, DType::F64, generated(), at("B"));
    b.add_join("AB", "A", "B", {1}, {0}, kernels::KernelCall("matmul"), at("AB"));
    b.add_aggregate("C", "AB", {0, 2}, kernels::KernelCall("add"), at("C"));
    if (L) {
        b.add_input("E", Shape{2 * J, 2 * L}, Shape{2, 2}, DType::F64, generated(), at("E"));
        b.add_join("CE", "C", "E", {1}, {0}, kernels::KernelCall("matmul"), at("CE"));
        b.add_output("CE", "out.h5", "/CE", at("out"));
    } else {
        b.add_output("C", "out.h5", "/C", at("out"));
    }
    return b.finish();
}

// A: [8, 6] in tiles [4, 3] -> frontier [2, 2]; B: [6, 6] in tiles [3, 2] -> frontier [2, 3].
struct TwoInputs {
    ProgramBuilder b{"p", DType::F64};
    TwoInputs() {
        b.add_input("A", Shape{8, 6}, Shape{4, 3}, DType::F64, generated(), at("inputs.A"));
        b.add_input("B", Shape{6, 6}, Shape{3, 2}, DType::F64, generated(), at("inputs.B"));
    }
    const Node& node(const std::string& name) { return b.node(*b.lookup_optional(name)); }
};

}  // namespace tra::testing
