#include "workflow/tile_field.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace tra::workflow {

bool has_auto_tile(const Field& root) {
    if (!root.has("inputs") || !root.at("inputs").is_map()) return false;
    for (const auto& [name, f] : root.at("inputs").entries()) {
        if (!f.is_map() || !f.has("tile")) continue;
        const YAML::Node t = f.at("tile").node();
        if (t.IsScalar() && t.Scalar() == "auto") return true;
        if (t.IsSequence())
            for (const auto& e : t)
                if (e.IsScalar() && e.Scalar() == "auto") return true;
    }
    return false;
}

std::vector<std::int64_t> parse_tile_field(const Field& f, const Shape& shape) {
    if (f.is_scalar() && f.node().Scalar() == "auto")
        return std::vector<std::int64_t>(shape.size(), 0);
    if (!f.is_sequence()) f.fail("tile is a list of sizes (or auto), one per dimension, or auto");
    std::vector<std::int64_t> tile;
    for (const Field& e : f.elements()) {
        if (e.is_scalar() && e.node().Scalar() == "auto") {
            tile.push_back(0);
        } else if (tile.push_back(e.as_int()); tile.back() < 1) {
            f.fail("tile sizes are positive (or auto)");
        }
    }
    return tile;
}

Shape resolve_auto_tile(const std::string& name, const Field& f, const Shape& shape,
                        const std::vector<std::int64_t>& tile, const Tiling& chosen_tiling,
                        const TilingSpace& space) {
    if (auto it = chosen_tiling.find(name); it != chosen_tiling.end()) {
        const Shape& chosen = it->second;
        if (const auto why = space.misfit(name, shape, tile, chosen))
            f.fail("the chosen tiling " + tile_text(chosen) + " of " + name +
                   " does not fit its shape " + shape.str() + ": " + *why);
        return chosen;
    }
    std::vector<std::int64_t> t = tile;
    for (std::size_t d = 0; d < t.size() && d < shape.size(); ++d)
        if (t[d] == 0) t[d] = shape[d];
    for (const TileClass& c : space.classes)
        for (const auto& [input, dim] : c.dims)
            if (space.inputs[input].name == name && c.fixed) t[dim] = *c.fixed;
    return Shape(t);
}

bool pads_auto_only(const Shape& shape, const Shape& tile,
                    const std::vector<std::int64_t>& written) {
    bool pads = false;
    for (std::size_t d = 0; d < shape.size() && d < tile.size(); ++d)
        if (tile[d] > 0 && shape[d] % tile[d] != 0) {
            if (d >= written.size() || written[d] != 0) return false;
            pads = true;
        }
    return pads;
}

void check_chosen_tiling(const Tiling& chosen, const TilingSpace& space, const std::string& path) {
    for (const auto& [name, tile] : chosen) {
        const std::string& input = name;  // (clang 14 cannot capture a binding)
        const bool known = std::any_of(space.inputs.begin(), space.inputs.end(),
                                       [&](const AutoInput& in) { return in.name == input; });
        if (!known)
            throw Error("a tiling is given for '" + name + "' (" + tile_text(tile) +
                            "), which is not an input with tile: auto in " + path,
                        {});
    }
}

}  // namespace tra::workflow
