#pragma once
// The strategies of a TRA aggregate (strategy.hpp lists them with the joins'). Positions in
// names are positions of the aggregate's INPUT key, as in the paper spec (plans/paper/README.md).
//
//   shuffle       local_aggregate(shuffle[by](R))
//   shuffle[p]    local_aggregate(shuffle[p](R)) for one group-by position p (only when by has
//                 two or more positions): Part(D) with D a subset of by keeps every group on one
//                 site, and leaves the output on Part[index of p in by] -- an "interesting"
//                 placement a consumer join may need (Opt4Vertical's proj=shuffle[2])
//   preagg        R2-5: local_aggregate(shuffle[0..|by|-1](partial_aggregate(R))): each site
//                 aggregates what it holds, the partials go to their group's home, which folds
//                 them by source site ascending (ia/partials.hpp)
//   preagg[p]     the same with the partials shuffled on the output position of p only
//   preagg-grid   the same with the partials reduced to an unreplicated Grid[0 x 1] on the
//                 most square grid of all sites (only when by has two or more positions): the
//                 reduce of the 3-D matrix multiply (join_grid.hpp)
//   local         local_aggregate(R) (R2-4 corrected): R is ALREADY Part(D) with D a subset of
//                 by, All, or a Grid on two group-by positions
//
// Bounded: 3 + 2|by| strategies for |by| >= 2 (subsets of size 1, the full list, the grid),
// else 3.
// The shuffle variants do not apply when the aggregate could run in place (that is `local`);
// the preagg variants apply only when some group's tuples really are on several sites, checked
// on the input's exact key set (otherwise preagg is the aggregate plus an empty exchange).
#include <vector>

#include "optimizer/strategy.hpp"

namespace tra::optimizer {

std::vector<Strategy> aggregate_strategies(const AggregateOp& op);

}  // namespace tra::optimizer
