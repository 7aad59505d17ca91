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

const TileClass* TilingSpace::class_of(const std::string& input, std::size_t dim) const {
    for (const TileClass& c : classes)
        for (const auto& [i, d] : c.dims)
            if (inputs[i].name == input && d == dim) return &c;
    return nullptr;
}

bool TilingSpace::paddable(const std::string& input, std::size_t dim) const {
    const TileClass* c = class_of(input, dim);
    return c && c->paddable;
}

namespace {
// ": step NAME ..." naming what keeps a class from being padded, or the general rule.
std::string unpadded_because(const TileClass* c) {
    if (c && !c->unpadded_by.empty()) return ": " + c->unpadded_by;
    return " (a step would mix padded entries that may not be zeros with real ones, or tra does "
           "not follow padding through it)";
}
}  // namespace

std::vector<std::string> TilingSpace::coarse_notes(int sites) const {
    std::vector<std::string> notes;
    const std::int64_t max_tiles = 16 * static_cast<std::int64_t>(sites);
    for (const TileClass& c : classes) {
        if (c.fixed || c.paddable || c.dims.empty() || c.extent < 2 * kMinUsefulTile) continue;
        std::vector<std::int64_t> divisors;
        bool useful = false;
        for (std::int64_t n = 2; n <= c.extent / 2 && divisors.size() < 8; ++n)
            if (c.extent % n == 0) {
                divisors.push_back(n);
                useful = useful || (n <= max_tiles && c.extent / n >= kMinUsefulTile);
            }
        if (useful) continue;
        std::string list;
        for (std::int64_t d : divisors) list += (list.empty() ? "" : ", ") + std::to_string(d);
        const auto& [input, dim] = c.dims.front();
        notes.push_back("dimension " + std::to_string(dim) + " of " + inputs[input].name +
                        " (extent " + std::to_string(c.extent) + ", divisors " +
                        (list.empty() ? "none" : list) +
                        ") has no tile count that cuts it usefully, and this program may not pad "
                        "it" +
                        unpadded_because(&c) +
                        " (docs/workflow-format.md, \"Padding\"): it stays coarsely cut");
    }
    return notes;
}

std::optional<std::string> TilingSpace::misfit(const std::string& input, const Shape& shape,
                                               const std::vector<std::int64_t>& written,
                                               const Shape& tile) const {
    if (tile.size() != shape.size() || written.size() != shape.size())
        return "it has " + std::to_string(tile.size()) + " sizes for " +
               std::to_string(shape.size()) + " dimensions";
    for (std::size_t d = 0; d < shape.size(); ++d) {
        const std::string dim = "dimension " + std::to_string(d) + ": ";
        if (tile[d] < 1 || tile[d] > shape[d])
            return dim + "tile " + std::to_string(tile[d]) + " is not in 1.." +
                   std::to_string(shape[d]);
        if (written[d] != 0 && written[d] != tile[d])
            return dim + "the workflow fixes the tile at " + std::to_string(written[d]);
        if (shape[d] % tile[d] != 0 && !(written[d] == 0 && paddable(input, d)))
            return dim + "tile " + std::to_string(tile[d]) + " does not divide " +
                   std::to_string(shape[d]) + ", and this program may not be padded along it" +
                   unpadded_because(class_of(input, d)) + " (docs/workflow-format.md, \"Padding\")";
    }
    return std::nullopt;
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
