#include "optimizer/emit.hpp"

#include <algorithm>
#include <type_traits>
#include <variant>

#include "core/error.hpp"
#include "ia/plan_validator.hpp"

namespace tra::optimizer {

using ia::IaNode;
using ia::IaNodeId;
using ia::IaOp;
using ia::Placement;
using ia::Plan;

std::optional<IaNodeId> emit_node(Plan& plan, IaOp op, NodeId origin, std::vector<IaNodeId> inputs,
                                  const std::string& rule, std::optional<Operator> logical,
                                  KeyPositions shuffle_dims, int map_arity) {
    IaNode n;
    n.op = op;
    n.origin = origin;
    n.inputs = std::move(inputs);
    n.logical = std::move(logical);
    n.shuffle_dims = std::move(shuffle_dims);
    n.map_arity = map_arity;
    n.rules = {rule};
    n.id = plan.size();
    auto inferred = ia::infer_output_placement(plan, n);
    if (!inferred.placement) return std::nullopt;
    n.placement = *inferred.placement;
    return plan.add(std::move(n));
}

namespace {

// An enforcer already in the plan that moves `in` the same way: two consumers needing the same
// copy (a relation broadcast for two joins) share one node, so it runs and is charged once. The
// node records every rule that asked for it.
std::optional<IaNodeId> existing_enforcer(Plan& plan, IaOp op, IaNodeId in,
                                          const KeyPositions& dims, const std::string& rule) {
    // An enforcer follows its input, so the search starts there, not at the plan's start.
    for (IaNodeId id = in + 1; id < plan.size(); ++id) {
        const ia::IaNode& n = plan.node(id);
        if (n.op != op || n.inputs.size() != 1 || n.inputs[0] != in || n.shuffle_dims != dims)
            continue;
        if (std::find(n.rules.begin(), n.rules.end(), rule) == n.rules.end())
            plan.mutable_node(id).rules.push_back(rule);
        return id;
    }
    return std::nullopt;
}

}  // namespace

std::optional<IaNodeId> emit_bcast(Plan& plan, IaNodeId in, const std::string& rule) {
    if (auto shared = existing_enforcer(plan, IaOp::Bcast, in, {}, rule)) return shared;
    return emit_node(plan, IaOp::Bcast, plan.node(in).origin, {in}, rule);
}

std::optional<IaNodeId> emit_shuffle(Plan& plan, IaNodeId in, KeyPositions dims,
                                     const std::string& rule) {
    if (auto shared = existing_enforcer(plan, IaOp::Shuffle, in, dims, rule)) return shared;
    return emit_node(plan, IaOp::Shuffle, plan.node(in).origin, {in}, rule, std::nullopt,
                     std::move(dims));
}

std::optional<IaNodeId> shuffle_unless_there(Plan& plan, IaNodeId in, const KeyPositions& dims,
                                             const std::string& rule) {
    if (plan.node(in).placement == Placement::part(dims)) return in;
    return emit_shuffle(plan, in, dims, rule);
}

std::optional<IaNodeId> emit_local_join(Plan& plan, NodeId id, IaNodeId left, IaNodeId right,
                                        const std::string& rule, std::optional<JoinOp> applied) {
    Operator logical = applied ? Operator(*applied) : plan.program().node(id).op;
    return emit_node(plan, IaOp::LocalJoin, id, {left, right}, rule, std::move(logical));
}

std::optional<IaNodeId> emit_local_aggregate(Plan& plan, NodeId id, IaNodeId in,
                                             const std::string& rule) {
    return emit_node(plan, IaOp::LocalAggregate, id, {in}, rule, plan.program().node(id).op);
}

std::optional<IaNodeId> emit_partial_aggregate(Plan& plan, NodeId id, IaNodeId in,
                                               const std::string& rule) {
    return emit_node(plan, IaOp::PartialAggregate, id, {in}, rule, plan.program().node(id).op);
}

bool aggregates_in_place(const Plan& plan, NodeId id, IaNodeId in) {
    IaNode trial;
    trial.op = IaOp::LocalAggregate;
    trial.origin = id;
    trial.inputs = {in};
    trial.logical = plan.program().node(id).op;
    trial.id = plan.size();
    return ia::infer_output_placement(plan, trial).placement.has_value();
}

std::optional<IaNodeId> emit_replication(Plan& plan, IaNodeId in, const ia::Replication& spec,
                                         const std::string& rule) {
    IaNode n;
    n.op = IaOp::Map;
    n.origin = plan.node(in).origin;
    n.inputs = {in};
    n.replicated = plan.replicated(n.origin, spec);
    n.map_arity = static_cast<int>(spec.arity());
    n.rules = {rule};
    n.id = plan.size();
    auto inferred = ia::infer_output_placement(plan, n);
    if (!inferred.placement) return std::nullopt;
    n.placement = *inferred.placement;
    return plan.add(std::move(n));
}

std::optional<IaNodeId> emit_grid_move(Plan& plan, IaNodeId in, const Placement& target,
                                       const std::string& rule) {
    IaNode n;
    n.op = IaOp::Grid;
    n.origin = plan.node(in).origin;
    n.inputs = {in};
    n.placement = target;
    n.rules = {rule};
    n.id = plan.size();
    if (!ia::infer_output_placement(plan, n).placement) return std::nullopt;
    return plan.add(std::move(n));
}

bool is_bcast(const IaNode& n) {
    return n.op == IaOp::Bcast;
}
bool is_shuffle(const IaNode& n) {
    return n.op == IaOp::Shuffle;
}
bool is_map(const IaNode& n) {
    return n.op == IaOp::Map;
}
bool is_local_filter(const IaNode& n) {
    return n.op == IaOp::LocalFilter;
}
bool is_local_join(const IaNode& n) {
    return n.op == IaOp::LocalJoin;
}
bool is_local_aggregate(const IaNode& n) {
    return n.op == IaOp::LocalAggregate;
}
bool is_partial_aggregate(const IaNode& n) {
    return n.op == IaOp::PartialAggregate;
}

IaNodeId emit_input(Plan& plan, NodeId id, const Placement& placement) {
    if (placement.kind() == Placement::Kind::Unknown)
        throw Error("input '" + plan.program().node(id).name +
                    "' cannot start in an Unknown placement");
    IaNode n;
    n.op = IaOp::Input;
    n.origin = id;
    n.logical = plan.program().node(id).op;
    n.placement = placement;
    n.rules = {"input"};
    return plan.add(std::move(n));
}

IaNodeId result_of(const Plan& plan, NodeId tra) {
    auto r = plan.result(tra);
    if (!r)
        throw Error("TRA node " + std::to_string(tra) + " has no IA plan yet", {},
                    ErrorKind::Failed);
    return *r;
}

IaNodeId emit_table1(Plan& plan, NodeId id) {
    const Node& node = plan.program().node(id);
    IaNodeId in = result_of(plan, node.inputs.at(0));
    auto must = [&](std::optional<IaNodeId> r) {
        if (!r)
            throw Error("the Table 1 plan of '" + node.name + "' is invalid", {},
                        ErrorKind::Failed);
        return *r;
    };
    return std::visit(
        [&](const auto& op) -> IaNodeId {
            using T = std::decay_t<decltype(op)>;
            if constexpr (std::is_same_v<T, FilterOp>) {
                return must(emit_node(plan, IaOp::LocalFilter, id, {in}, "table1", node.op));
            } else if constexpr (std::is_same_v<T, ConcatOp>) {
                KeyPositions rest;
                for (std::size_t p = 0; p < plan.program().node(node.inputs[0]).type.key_arity; ++p)
                    if (p != op.key_dim) rest.push_back(p);
                IaNodeId moved = must(emit_shuffle(plan, in, rest, "table1"));
                return must(emit_node(plan, IaOp::LocalAggregate, id, {moved}, "table1", node.op));
            } else if constexpr (std::is_same_v<T, TileOp>) {
                // One tuple becomes ceil(extent / size) pieces along the tiled dimension.
                std::int64_t extent = plan.program().node(node.inputs[0]).type.bound[op.dim];
                auto pieces = static_cast<int>((extent + op.size - 1) / op.size);
                return must(emit_node(plan, IaOp::Map, id, {in}, "table1", node.op, {}, pieces));
            } else if constexpr (std::is_same_v<T, RekeyOp> || std::is_same_v<T, TransformOp> ||
                                 std::is_same_v<T, FillOp>) {
                return must(emit_node(plan, IaOp::Map, id, {in}, "table1", node.op));
            } else {
                throw Error("'" + node.name + "' (" + operator_name(node.op) +
                                ") has strategies, not a single Table 1 rewrite",
                            {}, ErrorKind::Failed);
            }
        },
        node.op);
}

}  // namespace tra::optimizer
