#include "storage/layout.hpp"

#include "core/error.hpp"
#include "storage/hdf5_names.hpp"
#include "storage/padded_blocks.hpp"

namespace tra::storage {

RelationLayout RelationLayout::of(const RelationType& type, const Frontier& frontier,
                                  const Shape& cropped) {
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
        if (!cropped.empty()) {
            if (cropped.size() != type.rank())
                throw Error("cropped shape " + cropped.str() + " does not match " + type.str());
            for (std::size_t i = 0; i < type.rank(); ++i)
                if (cropped[i] > layout.dataset_shape[i] ||
                    cropped[i] <= layout.dataset_shape[i] - type.bound[i])
                    throw Error("cropped shape " + cropped.str() + " does not end in the last " +
                                "tiles of " + layout.dataset_shape.str());
            layout.dataset_shape = cropped;
        }
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

const Tile& RelationLayout::block(const Key& key, const Tile& tile, Tile& scratch) const {
    if (!tensor) return tile;
    const Shape at = origin(key);
    if (detail::block_fits(at, tile.shape(), dataset_shape)) return tile;
    scratch = cropped_block(tile, at, dataset_shape);
    return scratch;
}

}  // namespace tra::storage
