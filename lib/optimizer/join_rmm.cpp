#include "optimizer/join_rmm.hpp"

#include <utility>
#include <variant>

#include "ia/replicated_join.hpp"
#include "optimizer/emit.hpp"

namespace tra::optimizer {

using ia::IaNodeId;
using ia::Plan;

namespace {

constexpr const char* kRule = "R2-6:rmm";

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
    auto ls = emit_replication(plan, l, ia::rmm_left_replication(op, left, right), kRule);
    if (!ls) return std::nullopt;
    ls = shuffle_unless_there(plan, *ls, dims, kRule);
    auto rs = emit_replication(plan, r, ia::rmm_right_replication(op, left, right), kRule);
    if (!rs || !ls) return std::nullopt;
    rs = shuffle_unless_there(plan, *rs, dims, kRule);
    if (!rs) return std::nullopt;
    const JoinOp applied = ia::rmm_local_join(op, node.type.key_arity);
    return emit_local_join(plan, id, *ls, *rs, kRule, applied);
}

}  // namespace tra::optimizer
