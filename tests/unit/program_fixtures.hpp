#pragma once
// Small pieces for building typed programs in tests without a workflow file.
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
