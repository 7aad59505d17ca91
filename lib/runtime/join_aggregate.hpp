#pragma once
// A local join whose only consumer sums its output by group, computed as one step: each group
// keeps one accumulator and the join's kernel adds every product into it in place (gemm with
// beta = 1), so the products never exist as tiles and no separate pass adds them. The tiles
// equal those of join_tuples then aggregate_tuples up to rounding: the same products folded
// in the same (key) order, each addition done inside the kernel instead of by `add`.
#include <cstddef>
#include <optional>
#include <vector>

#include "ia/plan.hpp"
#include "runtime/local_ops.hpp"

namespace tra::runtime {

// Whether `aggregate` (the only consumer of a join with kernel `join`) can be fused with it:
// it sums with `add` and the join's kernel can accumulate (Kernel::accumulate).
bool fusable_join_aggregate(const JoinOp& join, const AggregateOp& aggregate);

// For each IA node: when it is a local join whose only consumer is a (partial) aggregate it can
// be fused with (fusable_join_aggregate), that consumer. The join then computes the consumer's
// tuples, which the consumer takes over. `last_use[n]` is the last node reading n's output
// (plan.size() for program results): a join whose output is a result is never fused.
std::vector<std::optional<ia::IaNodeId>> fused_joins(const ia::Plan& plan,
                                                     const std::vector<std::size_t>& last_use);

// The output of `aggregate_node` applied to the output of `join_node`, from the join's inputs.
// Each group starts as its first product (in key order); every further product is accumulated
// into it (KernelCall::accumulate), or, where the kernel cannot for those operands, computed and
// added with the aggregate's kernel. Throws Error (Failed) on a duplicate join key, as
// join_tuples does.
Tuples join_aggregate_tuples(const Node& join_node, const JoinOp& join, const Node& aggregate_node,
                             const AggregateOp& aggregate, const Tuples& left, const Tuples& right,
                             std::size_t right_arity);

}  // namespace tra::runtime
