#pragma once
// Tensor relations at the logical level: a type R^(k,r,b) with a dtype, the exact set of keys
// (relations may have holes after a filter), and the tuples themselves.
#include <map>
#include <set>
#include <string>

#include "core/dtype.hpp"
#include "core/index_vector.hpp"
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

// The exact, ordered set of keys of a relation.
class KeySet {
public:
    KeySet() = default;
    // Every key strictly below `frontier`: the key set of a plain tensor.
    static KeySet box(const Frontier& frontier);

    bool insert(const Key& k) { return keys_.insert(k).second; }
    bool contains(const Key& k) const { return keys_.count(k) != 0; }
    std::size_t size() const { return keys_.size(); }
    bool empty() const { return keys_.empty(); }
    auto begin() const { return keys_.begin(); }
    auto end() const { return keys_.end(); }

    // FRONT(R): one above the largest value in each position (all zeros when empty).
    Frontier frontier(std::size_t key_arity) const;
    // True when the keys are exactly the box below their frontier (no holes).
    bool is_box(std::size_t key_arity) const;

    friend bool operator==(const KeySet& a, const KeySet& b) { return a.keys_ == b.keys_; }

private:
    std::set<Key> keys_;
};

// A tensor relation held in one process: tuples ordered by key, so every traversal is
// deterministic.
struct TensorRelation {
    RelationType type;
    std::map<Key, Tile> tuples;

    KeySet keys() const;
};

}  // namespace tra
