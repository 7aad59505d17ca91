#include "optimizer/join_grid.hpp"

#include <algorithm>
#include <utility>
#include <variant>

#include "ia/grid_move.hpp"
#include "optimizer/emit.hpp"

namespace tra::optimizer {

using ia::IaNodeId;
using ia::Placement;
using ia::Plan;

namespace {

constexpr const char* kRule = "grid";

// The first key position of a relation of `arity` positions that is not a join key.
std::optional<std::size_t> first_free(std::size_t arity, const KeyPositions& keys) {
    for (std::size_t p = 0; p < arity; ++p)
        if (std::find(keys.begin(), keys.end(), p) == keys.end()) return p;
    return std::nullopt;
}

double tile_bytes_of(const Node& n) {
    return static_cast<double>(n.tuples()) * static_cast<double>(n.type.tile_bytes());
}

// A grid enforcer on IA node `in`, unless `in` already is on `target`.
std::optional<IaNodeId> move_to(Plan& plan, IaNodeId in, const Placement& target) {
    if (plan.node(in).placement == target) return in;
    return emit_grid_move(plan, in, target, kRule);
}

}  // namespace

std::optional<IaNodeId> join_grid(Plan& plan, NodeId id) {
    const Node& node = plan.program().node(id);
    const auto& op = std::get<JoinOp>(node.op);
    const Node& left = plan.program().node(node.inputs.at(0));
    const Node& right = plan.program().node(node.inputs.at(1));
    if (op.left_keys.empty() || op.right_keys.empty()) return std::nullopt;
    const auto r = first_free(left.type.key_arity, op.left_keys);
    const auto c = first_free(right.type.key_arity, op.right_keys);
    if (!r || !c) return std::nullopt;

    ia::GridShape g = ia::grid_shape(plan.sites());
    // L is copied to every column (pc copies): give the longer axis to the smaller side.
    if (tile_bytes_of(left) > tile_bytes_of(right)) std::swap(g.rows, g.cols);
    using R = Placement::Replicate;
    const Placement lt = Placement::grid(*r, op.left_keys[0], g.rows, g.cols, R::AlongRow);
    const Placement rt = Placement::grid(op.right_keys[0], *c, g.rows, g.cols, R::AlongColumn);

    IaNodeId l = result_of(plan, node.inputs[0]), rr = result_of(plan, node.inputs[1]);
    if (plan.node(l).placement == lt && plan.node(rr).placement == rt) return std::nullopt;
    auto lm = move_to(plan, l, lt);
    auto rm = move_to(plan, rr, rt);
    if (!lm || !rm) return std::nullopt;
    return emit_local_join(plan, id, *lm, *rm, kRule);
}

}  // namespace tra::optimizer
