#include "optimizer/tiling_moves.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

namespace tra::optimizer {

TilingMoves::TilingMoves(const TilingSpace& space,
                         const std::vector<std::vector<std::int64_t>>& sizes, bool grouped)
    : sizes_(sizes) {
    std::map<std::size_t, std::size_t> unit_of;  // group -> index into units_
    for (std::size_t c = 0; c < space.classes.size(); ++c) {
        const std::size_t key = grouped ? space.classes[c].group : c;
        const auto [it, added] = unit_of.emplace(key, units_.size());
        if (added) {
            units_.push_back({{}, sizes[c], space.classes[c].extent});
        } else {  // the sizes every member may take, coarsest first
            std::vector<std::int64_t>& s = units_[it->second].sizes;
            std::vector<std::int64_t> common;
            std::set_intersection(s.begin(), s.end(), sizes[c].begin(), sizes[c].end(),
                                  std::back_inserter(common), std::greater<>());
            s = std::move(common);
        }
        units_[it->second].classes.push_back(c);
    }
}

bool TilingMoves::empty() const {
    return std::any_of(units_.begin(), units_.end(), [](const Unit& u) { return u.sizes.empty(); });
}

bool TilingMoves::linked() const {
    return std::any_of(units_.begin(), units_.end(),
                       [](const Unit& u) { return u.classes.size() > 1; });
}

std::size_t TilingMoves::combinations() const {
    std::size_t n = 1;
    for (const Unit& u : units_) n = std::min<std::size_t>(n * u.sizes.size(), 1u << 20);
    return n;
}

TilingChoice TilingMoves::choice(const std::vector<std::size_t>& unit_index) const {
    TilingChoice at(sizes_.size(), 0);
    for (std::size_t u = 0; u < units_.size(); ++u) at = with(units_[u], unit_index[u], at);
    return at;
}

bool TilingMoves::next(std::vector<std::size_t>& unit_index) const {
    std::size_t u = 0;
    while (u < units_.size() && ++unit_index[u] == units_[u].sizes.size()) unit_index[u++] = 0;
    return u < units_.size();
}

TilingChoice TilingMoves::nearest(double count) const {
    std::vector<std::size_t> unit_index(units_.size(), 0);
    for (std::size_t u = 0; u < units_.size(); ++u) {
        double best = 1e300;
        for (std::size_t i = 0; i < units_[u].sizes.size(); ++i) {
            const double c = static_cast<double>(units_[u].extent / units_[u].sizes[i]);
            const double off = std::abs(std::log2(c) - std::log2(count));
            if (off < best) best = off, unit_index[u] = i;
        }
    }
    return choice(unit_index);
}

std::optional<TilingChoice> TilingMoves::coarser(const TilingChoice& at) const {
    TilingChoice out = at;
    bool moved = false;
    for (const Unit& u : units_)
        if (const std::size_t i = index(u, at); i > 0) out = with(u, i - 1, out), moved = true;
    return moved ? std::optional<TilingChoice>(out) : std::nullopt;
}

std::size_t TilingMoves::index(const Unit& u, const TilingChoice& at) const {
    const std::size_t c = u.classes.front();
    const auto it = std::find(u.sizes.begin(), u.sizes.end(), sizes_[c][at[c]]);
    return it == u.sizes.end() ? 0 : static_cast<std::size_t>(it - u.sizes.begin());
}

TilingChoice TilingMoves::with(const Unit& u, std::size_t i, const TilingChoice& at) const {
    TilingChoice out = at;
    for (std::size_t c : u.classes) {
        const auto& s = sizes_[c];
        out[c] = static_cast<std::size_t>(std::find(s.begin(), s.end(), u.sizes[i]) - s.begin());
    }
    return out;
}

std::size_t TilingMoves::scaled(const Unit& u, std::size_t i, double factor) const {
    const double extent = static_cast<double>(u.extent);
    const double target = factor * extent / static_cast<double>(u.sizes[i]);
    std::size_t nearest = i;
    for (std::size_t j = 0; j < u.sizes.size(); ++j)
        if (std::abs(extent / static_cast<double>(u.sizes[j]) - target) <
            std::abs(extent / static_cast<double>(u.sizes[nearest]) - target))
            nearest = j;
    return nearest;
}

namespace {
// Appends `n` to `out` unless it is `at` or already there.
void add_move(std::vector<TilingChoice>& out, const TilingChoice& at, const TilingChoice& n) {
    if (n != at && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
}
}  // namespace

std::vector<TilingChoice> TilingMoves::scalings(const TilingChoice& at) const {
    std::vector<TilingChoice> out;
    for (double factor : {2.0, 0.5}) {
        TilingChoice n = at;
        for (const Unit& u : units_) n = with(u, scaled(u, index(u, at), factor), n);
        add_move(out, at, n);
    }
    for (const Unit& u : units_)
        for (double factor : {2.0, 0.5})
            add_move(out, at, with(u, scaled(u, index(u, at), factor), at));
    return out;
}

std::vector<TilingChoice> TilingMoves::neighbours(const TilingChoice& at) const {
    std::vector<TilingChoice> out;
    for (const Unit& u : units_) {
        const std::size_t i = index(u, at);
        if (i + 1 < u.sizes.size()) out.push_back(with(u, i + 1, at));
        if (i > 0) out.push_back(with(u, i - 1, at));
    }
    return out;
}

std::vector<TilingChoice> TilingMoves::jumps(const TilingChoice& at) const {
    std::vector<TilingChoice> out;
    for (const Unit& u : units_)
        for (double factor : {4.0, 0.25})
            add_move(out, at, with(u, scaled(u, index(u, at), factor), at));
    for (const Unit& u : units_) {
        const std::size_t i = index(u, at);
        if (u.extent % u.sizes[i] == 0) continue;
        const auto divides = [&](std::size_t j) { return u.extent % u.sizes[j] == 0; };
        for (std::size_t j = i; j-- > 0;)  // coarser (sizes are coarsest first)
            if (divides(j)) {
                add_move(out, at, with(u, j, at));
                break;
            }
        for (std::size_t j = i + 1; j < u.sizes.size(); ++j)
            if (divides(j)) {
                add_move(out, at, with(u, j, at));
                break;
            }
    }
    return out;
}

}  // namespace tra::optimizer
