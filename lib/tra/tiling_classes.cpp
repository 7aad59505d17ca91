#include "tra/tiling_classes.hpp"

#include <algorithm>

#include "tra/einsum_lowering.hpp"

namespace tra {

int TilingClasses::fresh(Slot s) {
    slots_.push_back(s);
    parent_.push_back(static_cast<int>(parent_.size()));
    return static_cast<int>(slots_.size()) - 1;
}

int TilingClasses::find(int s) const {
    while (parent_[s] != s) s = parent_[s] = parent_[parent_[s]];
    return s;
}

void TilingClasses::unite(int a, int b) {
    if (a < 0 || b < 0) return;
    a = find(a);
    b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
}

std::vector<int> TilingClasses::keys_of(const std::string& relation) const {
    const auto it = keys_.find(relation);
    return it == keys_.end() ? std::vector<int>{} : it->second;
}

void TilingClasses::add_input(const std::string& name, const Shape& shape,
                              const std::vector<std::int64_t>& tile) {
    std::vector<int> keys;
    for (std::size_t d = 0; d < shape.size(); ++d)
        keys.push_back(
            fresh({shape[d], d < tile.size() ? tile[d] : shape[d], inputs_.size(), d, true}));
    inputs_.push_back({name, shape, tile});
    keys_[name] = std::move(keys);
}

void TilingClasses::add_einsum(const std::string& name, const std::vector<std::string>& operands,
                               const std::string& spec_text) {
    std::optional<EinsumSpec> spec;
    try {
        spec = EinsumSpec::parse(spec_text);
    } catch (const Error&) {
    }
    std::vector<int> out;
    if (spec && spec->operands.size() == operands.size()) {
        std::map<char, int> label;
        for (std::size_t i = 0; i < operands.size(); ++i) {
            const std::vector<int> keys = keys_of(operands[i]);
            if (keys.size() != spec->operands[i].size()) continue;
            for (std::size_t p = 0; p < keys.size(); ++p) {
                const auto [it, first] = label.emplace(spec->operands[i][p], keys[p]);
                if (!first) {
                    if (it->second < 0) it->second = keys[p];
                    unite(it->second, keys[p]);
                }
            }
        }
        for (char c : spec->output) out.push_back(label.count(c) ? label[c] : -1);
    }
    keys_[name] = std::move(out);
}

namespace {
bool reads_tiling(const kernels::KernelCall& kernel) {
    return kernel.properties().requires_whole_rows || kernel.properties().reads_tile_position;
}
}  // namespace

void TilingClasses::add_join(const std::string& name, const std::string& left,
                             const std::string& right, const KeyPositions& left_keys,
                             const KeyPositions& right_keys, const kernels::KernelCall& kernel,
                             const SourceLocation& where) {
    const std::vector<int> l = keys_of(left), r = keys_of(right);
    if (reads_tiling(kernel)) {
        const std::string what = "kernel " + kernel.name() + " reads whole rows or tile positions";
        depends(name, left, what, where);
        depends(name, right, what, where);
    }
    for (std::size_t i = 0; i < left_keys.size() && i < right_keys.size(); ++i)
        if (left_keys[i] < l.size() && right_keys[i] < r.size())
            unite(l[left_keys[i]], r[right_keys[i]]);
    std::vector<int> out = l;
    for (std::size_t p = 0; p < r.size(); ++p)
        if (std::find(right_keys.begin(), right_keys.end(), p) == right_keys.end())
            out.push_back(r[p]);
    keys_[name] = std::move(out);
}

void TilingClasses::add_aggregate(const std::string& name, const std::string& operand,
                                  const KeyPositions& by) {
    const std::vector<int> in = keys_of(operand);
    std::vector<int> out;
    for (std::size_t p : by) out.push_back(p < in.size() ? in[p] : -1);
    keys_[name] = std::move(out);
}

void TilingClasses::add_transform(const std::string& name, const std::string& operand,
                                  const kernels::KernelCall& kernel, const SourceLocation& where) {
    if (reads_tiling(kernel))
        depends(name, operand, "kernel " + kernel.name() + " reads whole rows or tile positions",
                where);
    add_same_keys(name, operand);
}

void TilingClasses::add_same_keys(const std::string& name, const std::string& operand) {
    keys_[name] = keys_of(operand);
}

void TilingClasses::add_carry(const std::string& input, const std::string& step) {
    const std::vector<int> a = keys_of(input), b = keys_of(step);
    for (std::size_t p = 0; p < a.size() && p < b.size(); ++p) unite(a[p], b[p]);
}

void TilingClasses::add_tiling_dependent(const std::string& name, const std::string& operand,
                                         const std::string& what, const SourceLocation& where) {
    depends(name, operand, what, where);
    keys_[name] = {};  // opaque from here on
}

void TilingClasses::depends(const std::string& name, const std::string& operand,
                            const std::string& what, const SourceLocation& where) {
    dependents_.push_back({name, what, keys_of(operand), where});
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
        if (added) space.classes.push_back({slots_[auto_slot.at(root)].extent, {}, std::nullopt});
        TileClass& c = space.classes[it->second];
        if (slot.tile == 0) {
            c.dims.emplace_back(index.at(slot.input), slot.dim);
        } else if (slot.extent == c.extent) {
            // The finest explicit tile: coarser operands are re-cut to it (einsum_retile.hpp).
            c.fixed = c.fixed ? std::min(*c.fixed, slot.tile) : slot.tile;
        }
    }
    return space;
}

}  // namespace tra
