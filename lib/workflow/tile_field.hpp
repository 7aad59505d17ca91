#pragma once
// The `tile` field of an input (docs/workflow-format.md, "Inputs", "Automatic tiling"): sizes,
// `auto`, or sizes and `auto` per dimension, and the tile an input with auto dimensions is
// built with. Internal to lib/workflow.
#include <cstdint>
#include <string>
#include <vector>

#include "core/relation.hpp"
#include "tra/tiling.hpp"
#include "workflow/yaml_fields.hpp"

namespace tra::workflow {

// Whether any input of the workflow document says auto in its tile.
bool has_auto_tile(const Field& root);

// The tile field: sizes, 0 where it says auto. Errors (sizes below 1, not a list) at the field.
std::vector<std::int64_t> parse_tile_field(const Field& f, const Shape& shape);

// The tile input `name` is built with: its explicit sizes, and for auto dimensions `chosen`'s
// tile for it (checked against the shape and explicit sizes, an error at `f` otherwise), else
// the finest explicit size tied to the dimension in `space`, else the whole extent.
Shape resolve_auto_tile(const std::string& name, const Field& f, const Shape& shape,
                        const std::vector<std::int64_t>& written, const Tiling& chosen,
                        const TilingSpace& space);

// The tile leaves a remainder along some dimension, and only along auto ones (`written` 0):
// the input is padded there (InputSource::padded); a remainder along an explicit size stays the
// builder's error.
bool pads_auto_only(const Shape& shape, const Shape& tile,
                    const std::vector<std::int64_t>& written);

// Every input `chosen` names must be an input with auto dimensions in `space` (of `path`).
void check_chosen_tiling(const Tiling& chosen, const TilingSpace& space, const std::string& path);

}  // namespace tra::workflow
