#pragma once
// The key sets of operator outputs whose inputs are dense (held as boxes), computed from the
// frontiers alone: a join, aggregation, tiling, concatenation or position-permuting rekey of
// boxes is again a box. Each returns nullopt where the output may have holes, and the caller
// enumerates instead.
#include <optional>
#include <string>

#include "core/index_vector.hpp"
#include "tra/program.hpp"

namespace tra {

// Output key = left ++ right without the right's join positions; a joined left position
// ranges up to the smaller of the two extents.
Frontier joined_box(const Frontier& left, const Frontier& right, const KeyPositions& left_keys,
                    const KeyPositions& right_keys);
// The positions `by`, in that order.
Frontier grouped_box(const Frontier& input, const KeyPositions& by);
// The input's frontier with `pieces` appended.
Frontier tiled_box(const Frontier& input, std::int64_t pieces);
// The input's frontier without `key_dim`.
Frontier concatenated_box(const Frontier& input, std::size_t key_dim);

// Where `f` only reorders the key's positions ("(k1, k0)", "(i, j) -> (j, i)"), each input
// position once: for each output position, the input position it copies.
std::optional<KeyPositions> position_permutation(const KeyFunction& f);
Frontier permuted_box(const Frontier& input, const KeyPositions& permutation);

}  // namespace tra
