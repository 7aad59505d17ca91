#pragma once
// The arithmetic of `tra run --verify`'s randomized check of a contraction (Freivalds): instead
// of recomputing O = sum_p K(L_p, R_p), compare O r with sum_p K(L_p, R_p r) for a random sign
// vector r, which costs one tile-vector product per operand instead of a tile product. The two
// sides differ only by rounding unless O is wrong; the bound below (ScaLAPACK's residual test,
// element-wise) tells rounding from a wrong element.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/dtype.hpp"
#include "core/tile.hpp"

namespace tra::runtime::freivalds {

// `length` signs (+1 or -1) drawn from `seed`: the same on every rank for the same seed.
std::vector<double> sign_vector(std::uint64_t seed, std::size_t length);

// A seed of its own for `value` under `seed` (an output tile's signs, from its column key).
std::uint64_t mix(std::uint64_t seed, std::int64_t value);

// `t` with dimension `dim` contracted with the first t.shape()[dim] entries of `r`, kept with
// extent 1 (a [k, n] tile contracted on dim 1 gives the [k, 1] tile t r), and the same of |t|
// with |r|, which bounds the first's rounding: {t r, |t| |r|}, in one pass over t. Host tiles.
std::pair<Tile, Tile> contract_dim_both(const Tile& t, std::size_t dim,
                                        const std::vector<double>& r);

// {L u, |L| w} as [m, 1] f64 tiles, in one pass over L, for a matrix L contracted on its
// dimension `dim` (1: L is [m, k]; 0: L is [k, m]) and vectors u, w of k elements (tiles of any
// shape with k elements, as R r is). Summed in f64 whatever L's dtype. Host tiles.
std::pair<Tile, Tile> matrix_vector_both(const Tile& l, std::size_t dim, const Tile& u,
                                         const Tile& w);

// |t| element-wise into `out` (of t's dtype and shape). Host tiles.
void absolute_into(const Tile& t, Tile& out);

// Whether `lhs` (O r) and `rhs` (the contraction with r applied first) agree within the bound
//     |lhs - rhs| <= c * eps * n * magnitude,   c = 8,
// where eps is the dtype's machine epsilon, n the number of terms summed into one element of
// either side (inner dimension, products and the columns r sums over) and `magnitude` the same
// computation on |L|, |R|, |r|, which bounds |O| |r| and the rounding of both sides. NaN on
// either side, or a difference where the magnitude is infinite, fails.
bool within_bound(double lhs, double rhs, double magnitude, std::int64_t n, DType dtype);

}  // namespace tra::runtime::freivalds
