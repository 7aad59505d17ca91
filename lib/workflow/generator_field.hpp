#pragma once
// An input's `generate:` field (docs/workflow-format.md, "Generated inputs"): one value
// distribution, its seed, and the tile density of a block-sparse input.
#include "storage/generator.hpp"
#include "workflow/yaml_fields.hpp"

namespace tra::workflow {

// Errors name the field's file, line and column.
storage::GeneratorSpec parse_generator(const Field& f);

}  // namespace tra::workflow
