#include "optimizer/strategy.hpp"

#include <variant>

#include "optimizer/aggregate_strategies.hpp"
#include "optimizer/emit.hpp"
#include "optimizer/join_grid.hpp"
#include "optimizer/join_rmm.hpp"

namespace tra::optimizer {

using ia::IaNodeId;
using ia::Placement;
using ia::Plan;

namespace {

IaNodeId input(const Plan& plan, NodeId id, std::size_t i) {
    return result_of(plan, tra_node(plan, id).inputs.at(i));
}
const JoinOp& join_op(const Plan& plan, NodeId id) {
    return std::get<JoinOp>(tra_node(plan, id).op);
}

std::optional<IaNodeId> join(Plan& plan, NodeId id, std::optional<IaNodeId> left,
                             std::optional<IaNodeId> right, const std::string& rule) {
    if (!left || !right) return std::nullopt;
    return emit_local_join(plan, id, *left, *right, rule);
}

bool is_all(const Plan& plan, IaNodeId n) {
    return plan.node(n).placement.kind() == Placement::Kind::All;
}

std::optional<IaNodeId> bcast_left(Plan& plan, NodeId id) {
    IaNodeId l = input(plan, id, 0), r = input(plan, id, 1);
    if (is_all(plan, l)) return std::nullopt;
    return join(plan, id, emit_bcast(plan, l, "R2-6:bcast-left"), r, "R2-6:bcast-left");
}

std::optional<IaNodeId> bcast_right(Plan& plan, NodeId id) {
    IaNodeId l = input(plan, id, 0), r = input(plan, id, 1);
    if (is_all(plan, r)) return std::nullopt;
    auto rb = emit_bcast(plan, r, "R2-6:bcast-right");
    return join(plan, id, l, rb, "R2-6:bcast-right");
}

std::optional<IaNodeId> cmm(Plan& plan, NodeId id) {
    const JoinOp& op = join_op(plan, id);
    IaNodeId l = input(plan, id, 0), r = input(plan, id, 1);
    if (plan.node(l).placement == Placement::part(op.left_keys) &&
        plan.node(r).placement == Placement::part(op.right_keys))
        return std::nullopt;
    auto ls = shuffle_unless_there(plan, l, op.left_keys, "R2-6:cmm");
    auto rs = shuffle_unless_there(plan, r, op.right_keys, "R2-6:cmm");
    return join(plan, id, ls, rs, "R2-6:cmm");
}

std::optional<IaNodeId> join_local(Plan& plan, NodeId id) {
    return join(plan, id, input(plan, id, 0), input(plan, id, 1), "local");
}

}  // namespace

std::vector<Strategy> strategies_for(const Operator& op) {
    static const std::vector<Strategy> joins = {{"bcast-left", bcast_left, "R2-6"},
                                                {"bcast-right", bcast_right, "R2-6"},
                                                {"cmm", cmm, "R2-6"},
                                                {"local", join_local},
                                                {"grid", join_grid},
                                                {"grid3", join_grid3},
                                                {"rmm", join_rmm}};
    if (std::holds_alternative<JoinOp>(op)) return joins;
    // Per aggregate: the shuffle variants name its group-by positions.
    if (const auto* agg = std::get_if<AggregateOp>(&op)) return aggregate_strategies(*agg);
    return {};
}

bool has_strategies(const Operator& op) {
    return !strategies_for(op).empty();
}

}  // namespace tra::optimizer
