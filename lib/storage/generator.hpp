#pragma once
// Synthetic inputs (`generate:` in a workflow). Every value is a function of (seed, global
// row-major element index) alone, so any rank can make any tile, the result does not depend on
// the tiling, and a few lines of numpy reproduce it (tools/reference/tragen.py; the formula is in
// docs/workflow-format.md).
#include <cstdint>
#include <string>

#include "core/index_vector.hpp"
#include "core/tile.hpp"

namespace tra::storage {

struct GeneratorSpec {
    enum class Kind {
        Uniform,   // lo + (hi - lo) * u, u in [0, 1)
        Integers,  // lo + floor(u * (hi - lo + 1)): integers in [lo, hi]
        Constant,  // lo everywhere
        Arange     // lo + hi * index (start, step): handy for exact tests
    };
    Kind kind = Kind::Uniform;
    double lo = 0.0;
    double hi = 1.0;
    std::uint64_t seed = 0;
    // Tile-level block sparsity (`density:`): the fraction of tiles present, (0, 1]; 1 is dense.
    double density = 1.0;

    std::string str() const;  // "uniform [-1, 1] seed 7", "constant 2.5", "arange [0, 1]"
};

// u in [0, 1) for (seed, index): SplitMix64 finalizer of seed * 0x9E3779B97F4A7C15 +
// (index + 1) * 0xD1B54A32D192ED03 (mod 2^64), top 53 bits scaled by 2^-53.
double unit_uniform(std::uint64_t seed, std::uint64_t index);
// The f64 value at a global flat index; f32 tensors hold this value rounded to f32.
double generated_value(const GeneratorSpec& spec, std::uint64_t index);

// `density:`: whether the tile at `key` of a relation of `tiles` tiles is present: u < density for
// u = unit_uniform(seed ^ 0x5851F42D4C957F2D, t), t the key's row-major index among `tiles`.
// Always true at density 1.
bool tile_present(const GeneratorSpec& spec, const Frontier& tiles, const Key& key);

// The tile at `key` of a tensor of `shape` cut into tiles of `bound` (key * bound is its origin);
// zeros where a padded tile reaches past the shape.
Tile generate_tile(const GeneratorSpec& spec, DType dtype, const Shape& shape, const Shape& bound,
                   const Key& key);

}  // namespace tra::storage
