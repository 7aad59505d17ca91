#pragma once
// Tiles that stick out of their tensor: a `tile: auto` dimension whose tile does not divide the
// extent is padded (docs/workflow-format.md, "Padding"): its last tiles reach past the tensor's
// shape. Reading such a tile fills the part outside with zeros; writing one writes only the part
// inside the dataset (the padding is cropped). Tiles that fit pass through unchanged.
#include "core/tile.hpp"
#include "storage/tensor_file.hpp"

namespace tra::storage {

// The tile of `bound` at `origin` of the reader's dataset (a tensor of the dataset's rank), with
// zeros where it lies outside the dataset.
Tile read_padded_block(const DatasetReader& reader, const Shape& origin, const Shape& bound);

// The part of `tile` (placed at `origin`) that lies inside `shape`: a smaller tile. For tiles
// that overlap the shape.
Tile cropped_block(const Tile& tile, const Shape& origin, const Shape& shape);

// Copies the leading corner that `from` and `to` share (per dimension the smaller extent) from
// `from` into `to`, leaving the rest of `to` as it is. Same dtype and rank; host tiles.
void copy_corner(const Tile& from, Tile& to);

}  // namespace tra::storage
