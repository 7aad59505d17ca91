#pragma once
// The arithmetic of `tra run --verify`'s randomized check of a contraction (Freivalds): instead
// of recomputing O = sum_p K(L_p, R_p), compare O r with sum_p K(L_p, R_p r) for a random sign
// vector r, which costs one tile-vector product per operand instead of a tile product. The two
// sides differ only by rounding unless O is wrong; the bound below (ScaLAPACK's residual test,
// element-wise) tells rounding from a wrong element.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/dtype.hpp"
#include "core/tile.hpp"

namespace tra::runtime::freivalds {

// `length` signs (+1 or -1) drawn from `seed`: the same on every rank for the same seed.
std::vector<double> sign_vector(std::uint64_t seed, std::size_t length);

// `t` with dimension `dim` contracted with the first t.shape()[dim] entries of `r` and kept with
// extent 1 (a [k, n] tile contracted on dim 1 is the [k, 1] tile t r). When `magnitude`, the
// contraction is of |t| with |r| instead (for the bound). Host tiles only.
Tile contract_dim(const Tile& t, std::size_t dim, const std::vector<double>& r, bool magnitude);

// |t| element-wise (host tiles only), new or into `out` (of t's dtype and shape).
Tile absolute(const Tile& t);
void absolute_into(const Tile& t, Tile& out);

// Whether `lhs` (O r) and `rhs` (the contraction with r applied first) agree within the bound
//     |lhs - rhs| <= c * eps * n * magnitude,   c = 8,
// where eps is the dtype's machine epsilon, n the number of terms summed into one element of
// either side (inner dimension, products and the columns r sums over) and `magnitude` the same
// computation on |L|, |R|, |r|, which bounds |O| |r| and the rounding of both sides. NaN on
// either side, or a difference where the magnitude is infinite, fails.
bool within_bound(double lhs, double rhs, double magnitude, std::int64_t n, DType dtype);

}  // namespace tra::runtime::freivalds
