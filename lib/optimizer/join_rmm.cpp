#include "optimizer/join_rmm.hpp"

#include <utility>
#include <variant>

#include "ia/plan_validator.hpp"
#include "ia/replicated_join.hpp"
#include "optimizer/emit.hpp"

namespace tra::optimizer {

using ia::IaNode;
using ia::IaNodeId;
using ia::IaOp;
using ia::Plan;

namespace {

constexpr const char* kRule = "R2-6:rmm";

// A replication map of the relation IA node `in` holds. Built by hand rather than by
// emit_node because it carries the replicated relation instead of a logical operator.
std::optional<IaNodeId> replicate(Plan& plan, IaNodeId in, const ia::Replication& spec) {
    IaNode n;
    n.op = IaOp::Map;
    n.origin = plan.node(in).origin;
    n.inputs = {in};
    n.replicated = plan.replicated(n.origin, spec);
    n.map_arity = static_cast<int>(spec.arity());
    n.rules = {kRule};
    n.id = plan.size();
    auto inferred = ia::infer_output_placement(plan, n);
    if (!inferred.placement) return std::nullopt;
    n.placement = *inferred.placement;
    return plan.add(std::move(n));
}

}  // namespace

std::optional<IaNodeId> join_rmm(Plan& plan, NodeId id) {
    const Node& node = plan.program().node(id);
    const auto& op = std::get<JoinOp>(node.op);
    const Node& left = plan.program().node(node.inputs.at(0));
    const Node& right = plan.program().node(node.inputs.at(1));
    if (ia::rmm_problem(op, left, right)) return std::nullopt;
    const IaNodeId l = result_of(plan, node.inputs[0]), r = result_of(plan, node.inputs[1]);
    if (plan.node(l).replicated || plan.node(r).replicated) return std::nullopt;
    const KeyPositions dims = ia::rmm_partition(op, left, right);
    auto ls = replicate(plan, l, ia::rmm_left_replication(op, left, right));
    if (!ls) return std::nullopt;
    ls = shuffle_unless_there(plan, *ls, dims, kRule);
    auto rs = replicate(plan, r, ia::rmm_right_replication(op, left, right));
    if (!rs || !ls) return std::nullopt;
    rs = shuffle_unless_there(plan, *rs, dims, kRule);
    if (!rs) return std::nullopt;
    const JoinOp applied = ia::rmm_local_join(op, node.type.key_arity);
    return emit_node(plan, IaOp::LocalJoin, id, {*ls, *rs}, kRule, applied);
}

}  // namespace tra::optimizer
