#pragma once
// The text form of a Placement, read back: the inverse of ia::Placement::str(), so plan files
// (docs/plan-format.md) write placements with str() and read them with parse_placement().
//
//   All
//   Unknown
//   Part[]  Part[1]  Part[0, 2]                            ordered key positions
//   Grid[0 x 1 on 2x3]                                      row position x column position on
//   Grid[0 x 1 on 2x3, replicated along rows]               grid_rows x grid_cols
//   Grid[0 x 1 on 2x3, replicated along columns]
//   Grid[0 x 2 x 1 on 2x2x4]                                a layered grid: layer position 1,
//                                                           4 layers (replication as above)
//
// Whitespace around the tokens is free (str() writes the canonical spacing above); the words are
// case-sensitive. Lives in lib/workflow, not lib/ia, because only the file formats need it.
#include <optional>
#include <string>

#include "ia/placement.hpp"

namespace tra::workflow {

// The placement `text` denotes, or nullopt when it is not one of the forms above (including a
// grid with fewer than one row or column, or numbers too large for an int).
std::optional<ia::Placement> parse_placement(const std::string& text);

// One line listing the accepted forms, for error messages.
std::string placement_syntax();

}  // namespace tra::workflow
