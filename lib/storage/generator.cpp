#include "storage/generator.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/error.hpp"

// Bit-exact agreement with tools/reference/tragen.py depends on every operation below being a
// single IEEE rounding: the project builds with -std=c++20 (no GNU extensions), under which GCC
// does not contract a * b + c into an FMA. Keep it that way, or these values change on FMA
// hardware.

namespace tra::storage {

namespace {

std::string kind_name(GeneratorSpec::Kind kind) {
    switch (kind) {
        case GeneratorSpec::Kind::Uniform:
            return "uniform";
        case GeneratorSpec::Kind::Integers:
            return "integers";
        case GeneratorSpec::Kind::Constant:
            return "constant";
        case GeneratorSpec::Kind::Arange:
            return "arange";
    }
    return "?";
}

// Shortest text that reads back as the same double, so str() can be pasted back into YAML.
std::string number(double x) {
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof buf, x);
    return std::string(buf, res.ptr);
}

}  // namespace

std::string GeneratorSpec::str() const {
    std::string s = kind_name(kind);
    if (kind == Kind::Constant)
        s += " " + number(lo);
    else
        s += " [" + number(lo) + ", " + number(hi) + "]";
    // Constant and arange ignore the seed, so showing one would suggest it matters, unless it
    // draws which tiles are present.
    if (kind == Kind::Uniform || kind == Kind::Integers || density < 1.0)
        s += " seed " + std::to_string(seed);
    if (density < 1.0) s += " density " + number(density);
    return s;
}

double unit_uniform(std::uint64_t seed, std::uint64_t index) {
    // Unsigned arithmetic wraps mod 2^64, which is exactly what SplitMix64 specifies.
    std::uint64_t z = seed * 0x9E3779B97F4A7C15ULL + (index + 1) * 0xD1B54A32D192ED03ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    // 53 bits fit a double's mantissa, so the conversion and the scaling are exact.
    return static_cast<double>(z >> 11) * 0x1.0p-53;
}

bool tile_present(const GeneratorSpec& spec, const Frontier& tiles, const Key& key) {
    if (spec.density >= 1.0) return true;
    std::uint64_t t = 0;  // row-major index of the key among the tiles
    for (std::size_t d = 0; d < key.size(); ++d)
        t = t * static_cast<std::uint64_t>(tiles[d]) + static_cast<std::uint64_t>(key[d]);
    // Another stream than the values' (seed ^ constant), so presence and values are independent.
    return unit_uniform(spec.seed ^ 0x5851F42D4C957F2DULL, t) < spec.density;
}

double generated_value(const GeneratorSpec& spec, std::uint64_t index) {
    switch (spec.kind) {
        case GeneratorSpec::Kind::Uniform:
            return spec.lo + (spec.hi - spec.lo) * unit_uniform(spec.seed, index);
        case GeneratorSpec::Kind::Integers:
            return spec.lo + std::floor(unit_uniform(spec.seed, index) * (spec.hi - spec.lo + 1.0));
        case GeneratorSpec::Kind::Constant:
            return spec.lo;
        case GeneratorSpec::Kind::Arange:
            return spec.lo + spec.hi * static_cast<double>(index);
    }
    return 0.0;
}

Tile generate_tile(const GeneratorSpec& spec, DType dtype, const Shape& shape, const Shape& bound,
                   const Key& key) {
    const std::size_t rank = shape.size();
    if (bound.size() != rank || key.size() != rank)
        throw Error("cannot generate tile " + key.str() + " of bound " + bound.str() +
                    " for a tensor of shape " + shape.str() + ": ranks differ");
    Shape origin(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        origin[i] = key[i] * bound[i];
        if (key[i] < 0 || origin[i] >= shape[i])
            throw Error("tile " + key.str() + " of bound " + bound.str() +
                        " lies outside a tensor of shape " + shape.str());
    }
    Tile tile = Tile::uninitialized(dtype, bound);  // the walk below sets every element
    if (tile.elements() == 0) return tile;
    visit_dtype(dtype, [&](auto t) {
        using T = decltype(t);
        T* out = tile.data<T>();
        // Walk the tile row by row: each row is a contiguous run of global indices. A padded
        // tile (padded_blocks.hpp) reaches past the shape: zeros there.
        Shape local(rank);
        Shape global(rank);
        const std::int64_t row = rank ? bound[rank - 1] : 1;
        const std::int64_t inside_row =
            rank ? std::min(row, shape[rank - 1] - origin[rank - 1]) : 1;
        std::int64_t pos = 0;
        do {
            bool inside = true;
            for (std::size_t i = 0; i < rank; ++i) {
                global[i] = origin[i] + local[i];
                inside = inside && global[i] < shape[i];
            }
            const auto start =
                inside ? static_cast<std::uint64_t>(row_major_offset(global, shape)) : 0;
            for (std::int64_t j = 0; j < row; ++j)
                out[pos++] = inside && j < inside_row
                                 ? static_cast<T>(generated_value(spec, start + j))
                                 : T(0);
            if (rank) local[rank - 1] = row - 1;  // next_in_box then moves to the next row
        } while (rank && next_in_box(local, bound));
    });
    return tile;
}

}  // namespace tra::storage
