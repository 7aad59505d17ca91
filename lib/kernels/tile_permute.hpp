#pragma once
// Permuting a tile's dimensions (a generalised transpose), cache-blocked: einsum brings operands
// whose labels are out of GEMM order into that order with it (TTGT) and the product back.
#include <cstddef>
#include <span>

#include "core/tile.hpp"

namespace tra::kernels {

// out = `in` (row-major, of `shape`) with its dimensions reordered: out's dimension d is in's
// dimension perm[d], out row-major too; out += that instead when `accumulate`. perm is a
// permutation of 0..rank-1; in and out do not overlap.
template <class T>
void permute(const T* in, const Shape& shape, std::span<const std::size_t> perm, T* out,
             bool accumulate = false);

// A host tile with its dimensions reordered as by permute.
Tile permute_tile(const Tile& tile, std::span<const std::size_t> perm);

}  // namespace tra::kernels
