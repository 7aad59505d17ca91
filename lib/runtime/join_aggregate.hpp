#pragma once
// A local join whose only consumer sums its output by group, computed as one step
// (ia/fused_joins.hpp says which): each group keeps one accumulator and the join's kernel adds
// every product into it in place (gemm with beta = 1), so the products never exist as tiles and
// no separate pass adds them. The tiles equal those of join_tuples then aggregate_tuples up to
// rounding: the same products folded in the same (key) order, each addition done inside the
// kernel instead of by `add`.
#include <cstddef>

#include "runtime/local_ops.hpp"

namespace tra::runtime {

// The output of `aggregate_node` applied to the output of `join_node`, from the join's inputs.
// Each group starts as its first product (in key order); every further product is accumulated
// into it (KernelCall::accumulate), or, where the kernel cannot for those operands, computed and
// added with the aggregate's kernel. Throws Error (Failed) on a duplicate join key, as
// join_tuples does.
Tuples join_aggregate_tuples(const Node& join_node, const JoinOp& join, const Node& aggregate_node,
                             const AggregateOp& aggregate, const Tuples& left, const Tuples& right,
                             std::size_t right_arity);

}  // namespace tra::runtime
