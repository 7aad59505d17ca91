#pragma once
// Which local joins the runtime computes together with the aggregate that reads them
// (runtime/join_aggregate.hpp): each group keeps one accumulator and the join's kernel adds
// every product into it in place, so the join's output never exists as tiles and no separate
// pass adds them. The time model (time_estimate.hpp) charges such a pair no memory pass.
#include <optional>
#include <vector>

#include "ia/plan.hpp"

namespace tra::ia {

// Whether `aggregate` (the only consumer of a join with kernel `join`) can be fused with it:
// the join's kernel can accumulate into the aggregate's (KernelCall::can_accumulate_into).
bool fusable_join_aggregate(const JoinOp& join, const AggregateOp& aggregate);

// For each IA node: when it is a local join whose only reader is a (partial) aggregate it can
// be fused with (fusable_join_aggregate), that reader. A join whose output is a program result
// or holds partials is never fused. With `first`, only the joins read by the aggregates from
// `first` on are looked at (the others' entries are nullopt): the search's beam asks of a
// partial plan's newest nodes only, and a whole-plan pass per extension made planning a long
// program quadratic in its length.
std::vector<std::optional<IaNodeId>> fused_joins(const Plan& plan, IaNodeId first = 0);

}  // namespace tra::ia
