#pragma once
// How a tensor relation lies in one HDF5 dataset.
// - Tensor layout (key arity == tile rank): the dense tensor of shape frontier * bound, chunked
//   by the bound; the tile at key k is the block starting at k * bound.
// - Relation layout (any other key arity): dataset shape frontier ++ bound, chunked by
//   (1, ..., 1) ++ bound; the tile at key k is the block starting at k ++ (0, ..., 0).
//   A key arity of 0 makes this just the bound: a single tile stored as a plain array.
#include "core/relation.hpp"

namespace tra::storage {

struct RelationLayout {
    Shape dataset_shape;
    Shape chunk;  // the block one tile occupies
    bool tensor = true;
    std::size_t key_arity = 0;
    Shape bound;

    // `cropped` (Output::shape), if not empty: a tensor's extents less the padding of padded
    // dimensions (padded_blocks.hpp), the dataset's shape in place of frontier * bound.
    static RelationLayout of(const RelationType& type, const Frontier& frontier,
                             const Shape& cropped = {});
    // First element of the tile's block in the dataset.
    Shape origin(const Key& key) const;
    // The block the tile at `key` writes: `tile` itself, or where it reaches past a cropped
    // dataset the part inside, made in `scratch` (which may be `tile`).
    const Tile& block(const Key& key, const Tile& tile, Tile& scratch) const;
};

}  // namespace tra::storage
