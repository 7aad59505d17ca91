#pragma once
// Where the tuples of an IA node's output are, key -> ascending sites: the one implementation
// that the costs (plan_costs.hpp) and the executor (runtime/executor.hpp) share, so measured ==
// predicted bytes never depends on two copies staying in step.
//
//   known placement   holders(keys, placement): the placement's site function
//   partial_aggregate one partial per (group, site holding a tuple of the group) (partials.hpp)
//   replication map   each tuple copied under inserted key positions, on its source's sites
//                     (replication.hpp)
//   map, local_filter a tuple keeps its site: a rekey carries the input's sites to the new key,
//                     a tile's pieces stay with their parent, a filter or transform keeps keys
//   anything else     cannot be told (e.g. a join over Unknown inputs): returned as the
//                     problem (an Error of kind Failed), so callers that only probe need no
//                     exception; the validator rejects such plans anyway
#include <vector>

#include "core/checked.hpp"
#include "ia/plan.hpp"

namespace tra::ia {

// Where node `n`'s tuples are, given where the tuples of each of its inputs are (`inputs[i]`
// for n.inputs[i]), or why that cannot be told ("cannot tell where the tuples of IA node #4 ...").
Checked<SiteMap> trace_node_sites(const Plan& plan, const IaNode& n,
                                  const std::vector<const SiteMap*>& inputs);

// Every node of a plan, indexed by IaNodeId, or the first node's problem.
Checked<std::vector<SiteMap>> trace_plan_sites(const Plan& plan);

}  // namespace tra::ia
