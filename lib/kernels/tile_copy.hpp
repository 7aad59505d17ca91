#pragma once
// The array halves of TILE and CONCAT: cutting a tile into pieces along one dimension and
// joining pieces back. They are operators' own array functions, not registry kernels.
#include <span>

#include "core/tile.hpp"

namespace tra::kernels {

// Piece `index` of `tile` cut along `dim` into pieces of `size` (size divides the extent).
Tile split_tile(const Tile& tile, std::size_t dim, std::int64_t size, std::int64_t index);
// The pieces laid end to end along `dim`, in the order given; all other extents must agree.
Tile concat_tiles(std::span<const Tile* const> pieces, std::size_t dim);

}  // namespace tra::kernels
