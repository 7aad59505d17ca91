#pragma once
// The per-operator local computations of TRA (paper section 3), on the tuples one process holds.
// The reference evaluator applies them to whole relations; the distributed executor applies them
// on each rank to the tuples that rank holds. One implementation, so both compute the same tiles
// in the same order of combination.
#include <cstddef>
#include <functional>
#include <map>

#include "core/relation.hpp"
#include "tra/program.hpp"

namespace tra::runtime {

using Tuples = std::map<Key, Tile>;

// The input's tiles for the keys of `node` that `mine` accepts (read from HDF5 or generated,
// tile by tile).
Tuples input_tuples(const Node& node, const std::function<bool(const Key&)>& mine,
                    std::int64_t iteration = 1);

// Every pair of tuples whose join positions agree (a hash join on the right's join positions).
// Output key: the left key, then the right key without its join positions. Throws Error
// (Failed) on a duplicate output key.
Tuples join_tuples(const Node& node, const JoinOp& op, const Tuples& left, const Tuples& right,
                   std::size_t right_arity);

// Each operator that passes some of its input's tiles on unchanged (a group's first tile, a
// fill's present tiles, a rekey's and a filter's tiles) has a second form for a caller that gives
// its input up (its last reader): that one moves those tiles instead of copying them, and leaves
// `in` holding moved-from tiles.

// Folds each group (key projected on op.by) in key order: acc = t0; acc = op(acc, t_i).
Tuples aggregate_tuples(const Node& node, const AggregateOp& op, const Tuples& in);
Tuples aggregate_tuples(const Node& node, const AggregateOp& op, Tuples&& in);

// Groups on every position but key_dim and concatenates each group's tiles in key_dim order.
Tuples concat_tuples(const ConcatOp& op, const Tuples& in);

// FILL: `in`'s tuples, and a tile of zeros (in `residence`) at each key of `node` that `in`
// lacks and `mine` accepts: the whole relation for the reference evaluator, a rank's share in a
// run (ia::fill_sites).
Tuples fill_tuples(const Node& node, const Tuples& in, const std::function<bool(const Key&)>& mine,
                   Residence residence = Residence::Host);
Tuples fill_tuples(const Node& node, Tuples&& in, const std::function<bool(const Key&)>& mine,
                   Residence residence = Residence::Host);

// Tuple-wise operators (rekey, filter, transform, tile; fill of every key). `input_frontier` is the
// frontier of the whole input relation (a transform's kernel may depend on it), not of the local
// part.
Tuples map_tuples(const Node& node, const Operator& op, const Tuples& in,
                  const Frontier& input_frontier);
Tuples map_tuples(const Node& node, const Operator& op, Tuples&& in,
                  const Frontier& input_frontier);

}  // namespace tra::runtime
