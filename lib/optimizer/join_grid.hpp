#pragma once
// The `grid` join strategy: SUMMA-like 2-D matrix multiply on a pr x pc process grid
// (ia/grid_move.hpp chooses the grid for S sites). For L ⋈ R on left_keys = right_keys:
//
//   L -> Grid[r x lk on pr x pc, replicated along rows]     r: L's first non-join position
//   R -> Grid[rk x c on pr x pc, replicated along columns]  c: R's first non-join position
//   local_join                                              -> Grid[r x c'] unreplicated
//
// (lk, rk: the first join pair; c': c in the output key). Each pair meets on exactly the site
// (l[r] mod pr, r[c] mod pc), so an aggregate grouping on r and c runs `local` on the output.
// For matmul A(i,k) ⋈ B(k,j) this is SUMMA: A's row blocks go to every column of their grid
// row, B's column blocks to every row of their grid column; from a 2-D block layout it moves
// (pc-1)|A| + (pr-1)|B| tiles.
//
// Orientation: L gets pc copies and R gets pr, so when a grid is not square the side with fewer
// tile bytes takes the longer axis (ties: L). A side already on its target is not moved; the
// strategy does not apply when neither side needs moving (that is `local`), or when a side has
// no non-join position (nothing to lay out along that grid axis) or the join has no keys.
//
// The `grid3` join strategy: the 3-D matrix multiply (Agarwal et al.; Solomonik and Demmel's
// 2.5-D with c = pl) on pl layers of pr x pc sites, pr * pc * pl = S, pl >= 2. The first join
// pair (lk, rk) also picks the layer, so each layer multiplies one slice of the contracted
// label:
//
//   L -> Grid[r x lk x lk on pr x pc x pl, replicated along rows]
//   R -> Grid[rk x c x rk on pr x pc x pl, replicated along columns]
//   local_join                                    -> Grid[r x c' x lk], unreplicated
//
// and the aggregate over the contracted label then folds each site's products (preagg) and
// sends one partial per layer to the group's home. It moves pc|A| + pr|B| + pl|C| against
// SUMMA's pc'|A| + pr'|B| on a pr' x pc' grid: at 1024 sites 8 + 8 + 16 = 32 square operands
// instead of 64. The shape minimizes that sum (|C| = the join's output tile count without the
// contracted label, times its tile bytes) among the factorizations that give every grid axis no
// more indices than its key position has tiles; the strategy does not apply when none has
// pl >= 2 (the 2-D grid then is the choice) or under the conditions of `grid`.
#include <optional>

#include "ia/plan.hpp"

namespace tra::optimizer {

std::optional<ia::IaNodeId> join_grid(ia::Plan& plan, NodeId id);

std::optional<ia::IaNodeId> join_grid3(ia::Plan& plan, NodeId id);

}  // namespace tra::optimizer
