#include "ia/fused_joins.hpp"

#include <variant>

#include "ia/last_uses.hpp"
#include "ia/operator_spec.hpp"

namespace tra::ia {

// Kernel::accumulate's contract (acc = g(acc, f(operands))) is exactly one step of the fold
// with g, so no algebraic property is needed beyond the aggregate's kernel being that g.
bool fusable_join_aggregate(const JoinOp& join, const AggregateOp& aggregate) {
    return join.kernel.can_accumulate_into(aggregate.kernel);
}

std::vector<std::optional<IaNodeId>> fused_joins(const Plan& plan) {
    const std::vector<IaNodeId> last_use = last_uses(plan);
    std::vector<int> consumers(plan.size(), 0);
    for (const IaNode& n : plan.nodes())
        for (auto in : n.inputs) ++consumers[in];
    std::vector<std::optional<IaNodeId>> fused(plan.size());
    for (const IaNode& c : plan.nodes()) {
        if (!operator_spec(c.op).group_by || c.inputs.size() != 1) continue;
        const IaNode& j = plan.node(c.inputs[0]);
        if (!operator_spec(j.op).joins || consumers[j.id] != 1 || last_use[j.id] != c.id ||
            plan.holds_partials(j.id))
            continue;
        const auto* join = std::get_if<JoinOp>(&plan.logical(j.id));
        const auto* agg = std::get_if<AggregateOp>(&plan.logical(c.id));
        if (join && agg && fusable_join_aggregate(*join, *agg)) fused[j.id] = c.id;
    }
    return fused;
}

}  // namespace tra::ia
