#include "ia/fused_joins.hpp"

#include <algorithm>
#include <variant>

#include "ia/operator_spec.hpp"

namespace tra::ia {

// Kernel::accumulate's contract (acc = g(acc, f(operands))) is exactly one step of the fold
// with g, so no algebraic property is needed beyond the aggregate's kernel being that g.
bool fusable_join_aggregate(const JoinOp& join, const AggregateOp& aggregate) {
    return join.kernel.can_accumulate_into(aggregate.kernel);
}

std::vector<std::optional<IaNodeId>> fused_joins(const Plan& plan, IaNodeId first) {
    std::vector<std::optional<IaNodeId>> fused(plan.size());
    const auto join_read_by = [&](const IaNode& c) -> std::optional<IaNodeId> {
        if (!operator_spec(c.op).group_by || c.inputs.size() != 1) return std::nullopt;
        const IaNodeId j = c.inputs[0];
        if (!operator_spec(plan.node(j).op).joins) return std::nullopt;
        return j;
    };
    // Only the nodes from the lowest such join on matter: a node reads earlier nodes only.
    IaNodeId lowest = plan.size();
    for (IaNodeId c = first; c < plan.size(); ++c)
        if (const auto j = join_read_by(plan.node(c))) lowest = std::min(lowest, *j);
    if (lowest == plan.size()) return fused;
    const auto at = [&](IaNodeId id) { return static_cast<std::size_t>(id - lowest); };
    std::vector<int> readers(plan.size() - lowest, 0);
    for (IaNodeId i = lowest + 1; i < plan.size(); ++i)
        for (IaNodeId in : plan.node(i).inputs)
            if (in >= lowest) ++readers[at(in)];
    // A join whose output is a result lives to the end (last_uses.hpp): it exists as tiles.
    std::vector<bool> result(readers.size(), false);
    const auto mark = [&](NodeId step) {
        if (const auto r = plan.result(step); r && *r >= lowest) result[at(*r)] = true;
    };
    for (const Output& o : plan.program().outputs) mark(o.node);
    if (const auto& repeat = plan.program().repeat)
        for (const Carry& c : repeat->carry) mark(c.step);
    for (IaNodeId c = first; c < plan.size(); ++c) {
        const auto j = join_read_by(plan.node(c));
        // Its only reader, and the last use of its output (last_uses.hpp): the aggregate.
        if (!j || readers[at(*j)] != 1 || result[at(*j)] || plan.holds_partials(*j)) continue;
        const auto* join = std::get_if<JoinOp>(&plan.logical(*j));
        const auto* agg = std::get_if<AggregateOp>(&plan.logical(c));
        if (join && agg && fusable_join_aggregate(*join, *agg)) fused[*j] = c;
    }
    return fused;
}

}  // namespace tra::ia
