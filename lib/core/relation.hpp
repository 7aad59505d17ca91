#pragma once
// Tensor relations at the logical level: a type R^(k,r,b) with a dtype, the exact set of keys
// (relations may have holes after a filter), and the tuples themselves.
#include <map>
#include <string>

#include "core/dtype.hpp"
#include "core/index_vector.hpp"
#include "core/key_set.hpp"
#include "core/tile.hpp"

namespace tra {

// R^(k,r,b): k-dimensional keys, tiles of rank r = bound.size() and bound b.
struct RelationType {
    std::size_t key_arity = 0;
    Shape bound;
    DType dtype = DType::F64;

    std::size_t rank() const { return bound.size(); }
    std::size_t tile_bytes() const {
        return static_cast<std::size_t>(bound.product()) * size_of(dtype);
    }
    // "R^(2,2,[1024, 1024]) f64"
    std::string str() const;
    friend bool operator==(const RelationType& a, const RelationType& b) {
        return a.key_arity == b.key_arity && a.bound == b.bound && a.dtype == b.dtype;
    }
};

// A tensor relation held in one process: tuples ordered by key, so every traversal is
// deterministic.
struct TensorRelation {
    RelationType type;
    std::map<Key, Tile> tuples;

    KeySet keys() const;
};

}  // namespace tra
