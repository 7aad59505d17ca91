#pragma once
// Physical strategies for the TRA nodes that have alternatives (joins and aggregates). Each is a
// small unit: a name and a rewrite that appends the node's IA sub-plan to a plan in which the
// node's inputs already have their chosen plans. A strategy that does not apply to its inputs'
// placements returns nullopt (the caller discards the partly extended plan copy).
//
//   join (R2-6)
//     bcast-left   local_join(bcast(L), R)       not when L is already All (that is `local`)
//     bcast-right  local_join(L, bcast(R))       not when R is already All
//     cmm          local_join(shuffle[jl](L), shuffle[jr](R)): both sides on Part of their join
//                  keys in matching order, so equal join-key values meet on one site; a side
//                  already in exactly that placement is not shuffled; not when neither side
//                  needs a shuffle (that is `local`)
//     local        local_join(L, R): the inputs are already co_located (ia/placement.hpp)
//   aggregate
//     shuffle      local_aggregate(shuffle[by](R))   not when the input is already suitable
//     local        local_aggregate(R) (R2-4 corrected): the input is ALREADY Part(D) with D a
//                  subset of `by`, All, or a Grid on two group-by positions
//
// Every strategy only states the IA nodes; placements are inferred and checked by the validator's
// rules (emit.hpp), so "applies" means exactly "the validator accepts the result".
//
// Not here (see docs/cost-model.md, "Strategies and search"): preagg (R2-5) needs an IA partial
// aggregate whose groups span sites and a reduce-style transfer cost, which lib/ia lacks.
#include <optional>
#include <string>
#include <vector>

#include "ia/plan.hpp"

namespace tra::optimizer {

struct Strategy {
    std::string name;
    // Appends the IA nodes of TRA node `id` to `plan` and returns its result node, or nullopt
    // when the strategy does not apply to the current placements of the node's inputs.
    std::optional<ia::IaNodeId> (*apply)(ia::Plan& plan, NodeId id);
};

// The strategies of a TRA node, in a fixed order; empty for nodes with a single rewrite (inputs,
// filters, maps, concat).
const std::vector<Strategy>& strategies_for(const Operator& op);

// Whether a TRA node is a choice point of the search (it has strategies).
bool has_strategies(const Operator& op);

}  // namespace tra::optimizer
