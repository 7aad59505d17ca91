#pragma once
// Makes the tiles of a program's inputs: read from their HDF5 dataset or generated, tile by tile.
#include "core/relation.hpp"
#include "tra/program.hpp"

namespace tra::runtime {

// The tile at `key` of input node `input` (read or generated).
Tile load_input_tile(const Node& input, const Key& key);

}  // namespace tra::runtime
