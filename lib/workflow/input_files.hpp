#pragma once
// Checks of an input's HDF5 file when a workflow is loaded (docs/workflow-format.md, "Inputs"):
// errors at the input's fields, before any plan is made.
#include <vector>

#include "tra/program.hpp"
#include "tra/program_builder.hpp"

namespace tra::workflow {

// The tiles of a `sparse: true` file input that cover an allocated chunk; an unreadable file is
// an error at the input's `sparse` field.
std::vector<Key> sparse_input_tiles(const InputSource& source, const Shape& tile,
                                    const StepSource& src);

// The file input `n` exists and holds its dtype and shape (errors at `file` or `shape`).
void check_input_file(const Node& n, const StepSource& src);

}  // namespace tra::workflow
