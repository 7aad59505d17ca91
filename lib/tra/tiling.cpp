#include "tra/tiling.hpp"

#include <charconv>

namespace tra {

Tiling TilingSpace::resolve(const std::vector<std::int64_t>& tiles) const {
    Tiling out;
    std::vector<std::vector<std::int64_t>> t;
    for (const AutoInput& in : inputs) t.push_back(in.tile);
    for (std::size_t c = 0; c < classes.size(); ++c)
        for (const auto& [input, dim] : classes[c].dims) t[input][dim] = tiles.at(c);
    for (std::size_t i = 0; i < inputs.size(); ++i) out.emplace(inputs[i].name, Shape(t[i]));
    return out;
}

bool TilingSpace::paddable(const std::string& input, std::size_t dim) const {
    for (const TileClass& c : classes)
        for (const auto& [i, d] : c.dims)
            if (inputs[i].name == input && d == dim) return c.paddable;
    return false;
}

std::string tile_text(const Shape& tile) {
    std::string s;
    for (std::size_t d = 0; d < tile.size(); ++d) s += (d ? "x" : "") + std::to_string(tile[d]);
    return s;
}

std::optional<Shape> parse_tile_text(const std::string& text) {
    std::vector<std::int64_t> dims;
    const char* p = text.data();
    const char* end = p + text.size();
    while (true) {
        std::int64_t v = 0;
        const auto [next, ec] = std::from_chars(p, end, v);
        if (ec != std::errc() || next == p || v < 1) return std::nullopt;
        dims.push_back(v);
        if (next == end) break;
        if (*next != 'x') return std::nullopt;
        p = next + 1;
    }
    return Shape(dims);
}

}  // namespace tra
