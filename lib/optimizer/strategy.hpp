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
//     grid         SUMMA on a 2-D process grid: L and R moved to replicated Grid placements
//                  (optimizer/join_grid.hpp); not when both already are there (`local`)
//     rmm          replication ("3-D"): L and R replicated to the output key by local maps,
//                  shuffled on its non-join positions, joined on every position
//                  (optimizer/join_rmm.hpp)
//   aggregate      shuffle, shuffle[p], preagg (R2-5), preagg[p], local: see
//                  aggregate_strategies.hpp
//
// The search (search.hpp) applies them while it builds plans; the R2-5 and R2-6 rules apply the
// ones tagged with their id to complete plans (Strategy::thesis_rule).
//
// Every strategy only states the IA nodes; placements are inferred and checked by the validator's
// rules (emit.hpp), so "applies" means exactly "the validator accepts the result".
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ia/plan.hpp"

namespace tra::optimizer {

struct Strategy {
    std::string name;
    // Appends the IA nodes of TRA node `id` to `plan` and returns its result node, or nullopt
    // when the strategy does not apply to the current placements of the node's inputs.
    // A std::function: an aggregate's variants capture the group-by positions they shuffle on.
    std::function<std::optional<ia::IaNodeId>(ia::Plan& plan, NodeId id)> apply;
    // The thesis rule whose rewrite this strategy is, when it is one: "R2-6" for bcast-left,
    // bcast-right and cmm, "R2-5" for preagg; empty for the others. That rule
    // (ia_rule_strategies.cpp) is a view of this registry: it offers exactly these strategies
    // as rewrites of a complete plan, so bcast, cmm and preagg are encoded once, here.
    std::string thesis_rule = {};
};

// The strategies of a TRA node, in a fixed order; empty for nodes with a single rewrite (inputs,
// filters, maps, concat). By value: an aggregate's list depends on its group-by positions.
std::vector<Strategy> strategies_for(const Operator& op);

// Whether a TRA node is a choice point of the search (it has strategies).
bool has_strategies(const Operator& op);

}  // namespace tra::optimizer
