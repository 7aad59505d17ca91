#include "storage/layout.hpp"

#include "core/error.hpp"

namespace tra::storage {

RelationLayout RelationLayout::of(const RelationType& type, const Frontier& frontier) {
    if (frontier.size() != type.key_arity)
        throw Error("frontier " + frontier.str() + " does not match " + type.str());
    RelationLayout layout;
    layout.key_arity = type.key_arity;
    layout.bound = type.bound;
    layout.tensor = type.key_arity == type.rank();
    if (layout.tensor) {
        for (std::size_t i = 0; i < type.rank(); ++i)
            layout.dataset_shape.push_back(frontier[i] * type.bound[i]);
        layout.chunk = type.bound;
    } else {
        for (auto f : frontier) {
            layout.dataset_shape.push_back(f);
            layout.chunk.push_back(1);
        }
        for (auto b : type.bound) {
            layout.dataset_shape.push_back(b);
            layout.chunk.push_back(b);
        }
    }
    return layout;
}

Shape RelationLayout::origin(const Key& key) const {
    if (key.size() != key_arity)
        throw Error("key " + key.str() + " has " + std::to_string(key.size()) +
                    " entries; the relation's keys have " + std::to_string(key_arity));
    Shape o;
    if (tensor) {
        for (std::size_t i = 0; i < key.size(); ++i) o.push_back(key[i] * bound[i]);
    } else {
        for (auto k : key) o.push_back(k);
        for (std::size_t i = 0; i < bound.size(); ++i) o.push_back(0);
    }
    return o;
}

}  // namespace tra::storage
