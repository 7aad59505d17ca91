#include "tra/tiling_classes.hpp"

// What the tracker answers once every step is added (tiling_classes.hpp): the tiling space, and
// per relation where it is padded, what a fold fills first and which outputs are cropped.
#include <algorithm>
#include <map>

#include "core/checked_math.hpp"

namespace tra {

std::vector<FoldFill> TilingClasses::fills_before(const std::string& name) const {
    const auto it = fills_.find(name);
    return it == fills_.end() ? std::vector<FoldFill>{} : it->second;
}

TilingSpace TilingClasses::space() const {
    // Class root -> the auto dimension that makes it auto (the first), if any.
    std::map<int, int> auto_slot;
    for (std::size_t s = 0; s < slots_.size(); ++s)
        if (slots_[s].from_input && slots_[s].tile == 0)
            auto_slot.emplace(find(static_cast<int>(s)), static_cast<int>(s));
    for (const Dependent& d : dependents_)
        for (int s : d.slots) {
            if (s < 0 || !auto_slot.count(find(s))) continue;
            const Slot& a = slots_[auto_slot.at(find(s))];
            throw Error("step " + d.name + ": its meaning depends on how its operand is tiled (" +
                            d.what + "), and that operand is cut along dimension " +
                            std::to_string(a.dim) + " of input " + inputs_[a.input].name +
                            ", whose tile is auto; give " + inputs_[a.input].name +
                            " an explicit tile",
                        d.where);
        }
    TilingSpace space;
    std::map<std::size_t, std::size_t> index;  // inputs_ index -> space.inputs index
    for (std::size_t i = 0; i < inputs_.size(); ++i)
        if (std::count(inputs_[i].tile.begin(), inputs_[i].tile.end(), 0) > 0) {
            index[i] = space.inputs.size();
            space.inputs.push_back(inputs_[i]);
        }
    std::map<int, std::size_t> class_of;  // root -> space.classes index
    for (std::size_t s = 0; s < slots_.size(); ++s) {
        const Slot& slot = slots_[s];
        const int root = find(static_cast<int>(s));
        if (!slot.from_input || !auto_slot.count(root)) continue;
        auto [it, added] = class_of.emplace(root, space.classes.size());
        if (added)
            space.classes.push_back({slots_[auto_slot.at(root)].extent,
                                     {},
                                     std::nullopt,
                                     paddable(root),
                                     paddable(root) ? std::string() : refusal(root)->why});
        TileClass& c = space.classes[it->second];
        if (slot.tile == 0) {
            c.dims.emplace_back(index.at(slot.input), slot.dim);
        } else if (slot.extent == c.extent) {
            // The finest explicit tile: coarser operands are re-cut to it (einsum_retile.hpp).
            c.fixed = c.fixed ? std::min(*c.fixed, slot.tile) : slot.tile;
        }
    }
    for (TileClass& c : space.classes) {
        c.paddable = c.paddable && !c.fixed;
        if (c.fixed) c.unpadded_by.clear();
    }
    return space;
}

std::optional<std::int64_t> TilingClasses::padded_extent(const std::string& relation,
                                                         std::size_t position) const {
    const std::vector<int> keys = keys_of(relation);
    if (position >= keys.size() || keys[position] < 0 || !paddable(keys[position]) ||
        dims_of(relation)[position] != static_cast<int>(position))
        return std::nullopt;
    return slots_[find(keys[position])].extent;
}

std::vector<PaddedDim> TilingClasses::dims_to_fill(const std::string& relation,
                                                   const std::vector<std::size_t>& positions,
                                                   double identity) const {
    const std::vector<bool> zeros = zeros_of(relation);
    std::vector<PaddedDim> out;
    for (std::size_t p : positions)
        if (const auto extent = padded_extent(relation, p);
            extent && !(identity == 0.0 && zeros[p]))
            out.push_back({p, *extent});
    return out;
}

void TilingClasses::crop_outputs(Program& program) const {
    for (Output& o : program.outputs) {
        const Node& n = program.node(o.node);
        const std::vector<int> keys = keys_of(n.name), dims = dims_of(n.name);
        if (!n.is_tensor() || keys.size() != n.type.rank()) continue;
        Shape shape(n.type.rank());
        bool cropped = false;
        for (std::size_t d = 0; d < keys.size(); ++d) {
            const std::int64_t bound = n.type.bound[d];
            shape[d] = n.frontier[d] * bound;
            if (keys[d] < 0 || dims[d] != static_cast<int>(d) || !paddable(keys[d])) continue;
            // A padded class: its last tile reaches past the extent.
            const std::int64_t extent = slots_[find(keys[d])].extent;
            if (extent % bound != 0 && ceil_div(extent, bound) == n.frontier[d]) {
                shape[d] = extent;
                cropped = true;
            }
        }
        if (cropped) o.shape = shape;
    }
}

}  // namespace tra
