#pragma once
// The moves of the tiling search (tiling_search.hpp) over a space of classes (tra/tiling.hpp):
// a choice holds, per class, the index of its tile size; a move changes the sizes of one unit
// of classes, or of every unit at once. Units are either whole groups (TileClass::group: the
// classes an einsum re-tiles into each other move together and stay cut alike) or single
// classes (each moves alone, so a re-tiling is placed where cutting apart pays).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "tra/tiling.hpp"

namespace tra::optimizer {

using TilingChoice = std::vector<std::size_t>;  // per class: index into its sizes

class TilingMoves {
  public:
    // `sizes`: per class of `space`, the tile sizes it may take, coarsest first. `grouped`:
    // one unit per group, taking the sizes every member may take; else one unit per class.
    TilingMoves(const TilingSpace& space, const std::vector<std::vector<std::int64_t>>& sizes,
                bool grouped);

    // Some unit has no size: no choice exists.
    bool empty() const;
    std::size_t units() const { return units_.size(); }
    // Some unit holds several classes.
    bool linked() const;
    // The number of choices, capped at 2^20.
    std::size_t combinations() const;
    // The choice with each unit at index unit_index[u] of its sizes; every unit at 0 is the
    // coarsest. next() steps through every choice (false after the last).
    TilingChoice choice(const std::vector<std::size_t>& unit_index) const;
    bool next(std::vector<std::size_t>& unit_index) const;
    // Each unit at the tile count nearest `count` (on a log scale).
    TilingChoice nearest(double count) const;
    // Each unit one size coarser where it can be; nullopt when none can.
    std::optional<TilingChoice> coarser(const TilingChoice& at) const;

    // The first moves from `at`: every unit twice and half as finely cut, then one unit
    // twice and half.
    std::vector<TilingChoice> scalings(const TilingChoice& at) const;
    // One unit to the next size up or down (a count between two doublings).
    std::vector<TilingChoice> neighbours(const TilingChoice& at) const;
    // Each unit alone four times and a quarter as finely cut, and each padded unit to the
    // nearest tile counts that divide its extent, coarser and finer.
    std::vector<TilingChoice> jumps(const TilingChoice& at) const;

  private:
    struct Unit {
        std::vector<std::size_t> classes;
        std::vector<std::int64_t> sizes;  // coarsest first
        std::int64_t extent = 0;
    };
    // The unit's index into its sizes at `at` (its first class's size).
    std::size_t index(const Unit& u, const TilingChoice& at) const;
    // `at` with every class of `u` at size u.sizes[i].
    TilingChoice with(const Unit& u, std::size_t i, const TilingChoice& at) const;
    // The index of u's size whose tile count is nearest `factor` times that of u.sizes[i].
    std::size_t scaled(const Unit& u, std::size_t i, double factor) const;

    const std::vector<std::vector<std::int64_t>>& sizes_;  // per class
    std::vector<Unit> units_;
};

}  // namespace tra::optimizer
