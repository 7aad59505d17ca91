#pragma once
// Automatic tiling (`tile: auto`, docs/workflow-format.md, "Automatic tiling"): the inputs whose
// tile the planner chooses, the classes of their dimensions that must be cut alike, and one
// choice of tiles. The workflow loader finds the space (workflow/tiling_classes.hpp); the
// planner searches it (optimizer/tiling_search.hpp); a Program records the tiling it was built
// with, and plan files record that tiling so a run rebuilds the same program.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/relation.hpp"

namespace tra {

// Input name -> its whole tile shape (explicit dimensions included).
using Tiling = std::map<std::string, Shape>;

// An input with at least one `auto` dimension.
struct AutoInput {
    std::string name;
    Shape shape;
    std::vector<std::int64_t> tile;  // per dimension; 0 where the workflow says auto
};

// A set of dimensions the program ties together (an einsum label, a join's `on` positions):
// they get one tile size. `fixed` is set when an explicitly tiled dimension is in the class.
struct TileClass {
    std::int64_t extent = 0;
    std::vector<std::pair<std::size_t, std::size_t>> dims;  // (index into inputs, dimension)
    std::optional<std::int64_t> fixed;
    // A tile that does not divide the extent is exact here (tiling_classes.hpp): the last tile
    // is padded with zeros and the padding cropped on output.
    bool paddable = false;
    // Where it is not: the first step (in program order) that makes padding inexact, and why,
    // for the messages that refuse or skip a padded tile. Empty for a fixed class.
    std::string unpadded_by;
    // Classes of one group are cut alike unless the search finds it pays to cut them apart:
    // an einsum re-tiles an operand computed by a step (a class of its producer's) to the cut
    // of an input operand (another class) where the two differ (tiling_classes.hpp). Equal to
    // the class's own index where it is linked to none.
    std::size_t group = 0;
};

inline constexpr std::int64_t kMinUsefulTile = 8;

struct TilingSpace {
    std::vector<AutoInput> inputs;
    std::vector<TileClass> classes;  // every auto dimension is in exactly one

    bool empty() const { return inputs.empty(); }
    // The tiling that gives class c the tile size tiles[c].
    Tiling resolve(const std::vector<std::int64_t>& tiles) const;
    // The class of dimension `dim` of auto input `input`; nullptr when it has none.
    const TileClass* class_of(const std::string& input, std::size_t dim) const;
    // Dimension `dim` of auto input `input` is in a paddable class.
    bool paddable(const std::string& input, std::size_t dim) const;
    // Why `tile` cannot cut auto input `input` (of `shape`, `written` its tile field: 0 where
    // auto), or nullopt when it can: a size outside 1..extent, one that differs from an
    // explicit size, or one that does not divide an extent that may not be padded.
    // One line per free class that can only be cut coarsely at `sites` sites: no tile count
    // from 2 up to 16 x sites with tiles of at least kMinUsefulTile divides its extent, and it may
    // not be padded. Names a dimension of the class, its extent and its divisors (tra plan
    // prints them as notes).
    std::vector<std::string> coarse_notes(int sites) const;
    std::optional<std::string> misfit(const std::string& input, const Shape& shape,
                                      const std::vector<std::int64_t>& written,
                                      const Shape& tile) const;
};

// "1024x512" for a tile shape, as plan names and pins write it.
std::string tile_text(const Shape& tile);
// The inverse; nullopt for text that is not positive integers joined by 'x'.
std::optional<Shape> parse_tile_text(const std::string& text);

}  // namespace tra
