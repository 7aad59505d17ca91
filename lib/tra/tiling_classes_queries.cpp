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

std::vector<std::size_t> TilingClasses::followers(const std::string& name) const {
    std::vector<std::size_t> out;
    const auto it = followers_.find(name);
    if (it == followers_.end()) return out;
    for (const auto& [operand, slot] : it->second) {
        const int root = find(slot);  // (clang 14 cannot capture a binding)
        const bool automatic = std::any_of(slots_.begin(), slots_.end(), [&](const Slot& s) {
            return s.from_input && s.tile == 0 &&
                   find(static_cast<int>(&s - slots_.data())) == root;
        });
        if (automatic && (out.empty() || out.back() != operand)) out.push_back(operand);
    }
    return out;
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
    // Groups of classes linked by re-tilings. A link to dimensions that are not auto ties as a
    // class would: the auto classes of the group take their finest explicit tile.
    std::vector<std::size_t> group(space.classes.size());
    for (std::size_t c = 0; c < group.size(); ++c) group[c] = c;
    const auto group_of = [&](std::size_t c) {
        while (group[c] != c) c = group[c] = group[group[c]];
        return c;
    };
    std::map<int, std::int64_t> explicit_tile;  // root without auto dims -> its finest tile
    for (std::size_t s = 0; s < slots_.size(); ++s) {
        const int root = find(static_cast<int>(s));
        if (!slots_[s].from_input || auto_slot.count(root) || slots_[s].tile == 0) continue;
        auto [it, added] = explicit_tile.emplace(root, slots_[s].tile);
        if (!added) it->second = std::min(it->second, slots_[s].tile);
    }
    std::map<std::size_t, std::int64_t> fixed_group;  // group -> explicit tile linked to it
    for (const auto& [a, b] : links_) {
        const int ra = find(a), rb = find(b);
        const auto ca = class_of.find(ra), cb = class_of.find(rb);
        if (ca != class_of.end() && cb != class_of.end()) {
            const std::size_t ga = group_of(ca->second), gb = group_of(cb->second);
            group[std::max(ga, gb)] = std::min(ga, gb);
        }
    }
    for (const auto& [a, b] : links_)
        for (const auto& [auto_root, other] : {std::pair{find(a), find(b)}, {find(b), find(a)}}) {
            const auto c = class_of.find(auto_root);
            const auto t = explicit_tile.find(other);
            if (c == class_of.end() || t == explicit_tile.end()) continue;
            auto [it, added] = fixed_group.emplace(group_of(c->second), t->second);
            if (!added) it->second = std::min(it->second, t->second);
        }
    for (std::size_t i = 0; i < space.classes.size(); ++i) {
        TileClass& c = space.classes[i];
        c.group = group_of(i);
        if (const auto f = fixed_group.find(c.group); f != fixed_group.end())
            c.fixed = c.fixed ? std::min(*c.fixed, f->second) : f->second;
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
