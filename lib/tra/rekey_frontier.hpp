#pragma once
// The frontier of the keys a rekey produces, checked: a rekey may map small keys to huge ones
// ("(i, j) -> (i * 9223372036854775807, j)"), and a frontier computed by wrapping arithmetic
// would turn into a wrong answer ("C has holes: 4 of 2 tuples") instead of an error.
#include "core/checked.hpp"
#include "core/index_vector.hpp"
#include "core/relation.hpp"
#include "tra/key_function.hpp"

namespace tra {

// The frontier of `keys` (the results of `f`), or the problem (BadInput) when a position's
// largest value + 1, or the number of keys below the frontier, does not fit in 64 bits.
Checked<Frontier> rekey_frontier(const KeyFunction& f, const KeySet& keys);

}  // namespace tra
