#include "core/relation.hpp"

#include <algorithm>

namespace tra {

std::string RelationType::str() const {
    return "R^(" + std::to_string(key_arity) + "," + std::to_string(rank()) + "," + bound.str() +
           ") " + name_of(dtype);
}

KeySet KeySet::box(const Frontier& frontier) {
    KeySet set;
    for (auto f : frontier)
        if (f <= 0) return set;
    Key k(frontier.size());
    do {
        set.insert(k);
    } while (next_in_box(k, frontier));
    return set;
}

Frontier KeySet::frontier(std::size_t key_arity) const {
    Frontier f(key_arity, 0);
    for (const Key& k : keys_)
        for (std::size_t i = 0; i < key_arity; ++i) f[i] = std::max(f[i], k[i] + 1);
    return f;
}

bool KeySet::is_box(std::size_t key_arity) const {
    Frontier f = frontier(key_arity);
    return !keys_.empty() && static_cast<std::int64_t>(keys_.size()) == f.product();
}

KeySet TensorRelation::keys() const {
    KeySet s;
    for (const auto& [k, tile] : tuples) s.insert(k);
    return s;
}

}  // namespace tra
