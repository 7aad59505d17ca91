#pragma once
// The `rmm` join strategy (R2-6): the TRA paper's replication-based ("3-D") matrix multiply,
// for any join whose sides both have a non-join key position (ia/replicated_join.hpp):
//
//   L* = map(L, replicate over R's non-join positions)        free: copies stay on L's sites
//   R* = map(R, insert L's non-join positions)                 free
//   shuffle[output positions that are not join keys](L*), the same for R*
//   local_join on every position                               -> Part[those positions]
//
// For A(i,k) ⋈ B(k,j): A* = A replicated FRONT(B)[1] times, B* = B replicated FRONT(A)[0] times,
// both on Part[0, 2], so the following k-sum (by [0, 2]) is local. Paper cost: the shuffles of
// A* and B*, xDups*|A| + yDups*|B| floats. Does not apply when rmm_problem says so (no join
// keys, a side without a free position, repeated join positions, an empty operand).
#include <optional>

#include "ia/plan.hpp"

namespace tra::optimizer {

std::optional<ia::IaNodeId> join_rmm(ia::Plan& plan, NodeId id);

}  // namespace tra::optimizer
