#pragma once
// Small pieces for building typed programs in tests without a workflow file.
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

}  // namespace tra::testing
