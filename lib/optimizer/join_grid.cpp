#include "optimizer/join_grid.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <variant>

#include "ia/grid_move.hpp"
#include "optimizer/emit.hpp"

namespace tra::optimizer {

using ia::IaNodeId;
using ia::Placement;
using ia::Plan;

namespace {

// The first key position of a relation of `arity` positions that is not a join key.
std::optional<std::size_t> first_free(std::size_t arity, const KeyPositions& keys) {
    for (std::size_t p = 0; p < arity; ++p)
        if (std::find(keys.begin(), keys.end(), p) == keys.end()) return p;
    return std::nullopt;
}

double tile_bytes_of(const Node& n) {
    return static_cast<double>(n.tuples()) * static_cast<double>(n.type.tile_bytes());
}

// Tiles of `n` along key position `d` (its frontier; 1 when unknown).
std::int64_t tiles_along(const Node& n, std::size_t d) {
    return d < n.frontier.size() ? std::max<std::int64_t>(n.frontier[d], 1) : 1;
}

// The positions a grid join reads: r and c (each side's first non-join position) and the first
// join pair (lk, rk); nullopt when the join has no keys or a side no free position.
struct GridAxes {
    std::size_t r, c, lk, rk;
};

std::optional<GridAxes> grid_axes(const Plan& plan, NodeId id) {
    const Node& node = plan.program().node(id);
    const auto& op = std::get<JoinOp>(node.op);
    const Node& left = plan.program().node(node.inputs.at(0));
    const Node& right = plan.program().node(node.inputs.at(1));
    if (op.left_keys.empty() || op.right_keys.empty()) return std::nullopt;
    const auto r = first_free(left.type.key_arity, op.left_keys);
    const auto c = first_free(right.type.key_arity, op.right_keys);
    if (!r || !c) return std::nullopt;
    return GridAxes{*r, *c, op.left_keys[0], op.right_keys[0]};
}

// A grid enforcer on IA node `in`, unless `in` already is on `target`.
std::optional<IaNodeId> move_to(Plan& plan, IaNodeId in, const Placement& target,
                                const char* rule) {
    if (plan.node(in).placement == target) return in;
    return emit_grid_move(plan, in, target, rule);
}

// Moves both sides to their targets (a side already there stays) and joins them locally;
// nullopt when both already are there (that is `local`).
std::optional<IaNodeId> join_on(Plan& plan, NodeId id, const Placement& lt, const Placement& rt,
                                const char* rule) {
    const Node& node = plan.program().node(id);
    IaNodeId l = result_of(plan, node.inputs[0]), r = result_of(plan, node.inputs[1]);
    if (plan.node(l).placement == lt && plan.node(r).placement == rt) return std::nullopt;
    auto lm = move_to(plan, l, lt, rule);
    auto rm = move_to(plan, r, rt, rule);
    if (!lm || !rm) return std::nullopt;
    return emit_local_join(plan, id, *lm, *rm, rule);
}

struct LayeredShape {
    int rows = 1, cols = 1, layers = 1;
};

// The grid3 shape for `sites` (join_grid.hpp): the cheapest exact factorization with at least
// two layers and no axis longer than its tiles, or nullopt. Ties: the first in (rows, cols)
// order, so the choice is deterministic.
std::optional<LayeredShape> layered_shape(int sites, const Node& left, const Node& right,
                                          const Node& join, const GridAxes& a) {
    const std::int64_t rows_max = tiles_along(left, a.r), cols_max = tiles_along(right, a.c);
    const std::int64_t layers_max = tiles_along(left, a.lk);
    const double out_bytes = static_cast<double>(rows_max) * static_cast<double>(cols_max) *
                             static_cast<double>(join.type.tile_bytes());
    std::optional<LayeredShape> best;
    double best_cost = 0;
    for (int pr = 1; pr <= sites && pr <= rows_max; ++pr) {
        if (sites % pr) continue;
        for (int pc = 1; pc <= sites / pr && pc <= cols_max; ++pc) {
            if ((sites / pr) % pc) continue;
            const int pl = sites / pr / pc;
            if (pl < 2 || pl > layers_max) continue;
            const double cost =
                pc * tile_bytes_of(left) + pr * tile_bytes_of(right) + pl * out_bytes;
            if (!best || cost < best_cost) best = LayeredShape{pr, pc, pl}, best_cost = cost;
        }
    }
    return best;
}

}  // namespace

std::optional<IaNodeId> join_grid(Plan& plan, NodeId id) {
    const auto a = grid_axes(plan, id);
    if (!a) return std::nullopt;
    const Node& node = plan.program().node(id);
    const Node& left = plan.program().node(node.inputs.at(0));
    const Node& right = plan.program().node(node.inputs.at(1));
    ia::GridShape g = ia::grid_shape(plan.sites());
    // L is copied to every column (pc copies): give the longer axis to the smaller side.
    if (tile_bytes_of(left) > tile_bytes_of(right)) std::swap(g.rows, g.cols);
    using R = Placement::Replicate;
    return join_on(plan, id, Placement::grid(a->r, a->lk, g.rows, g.cols, R::AlongRow),
                   Placement::grid(a->rk, a->c, g.rows, g.cols, R::AlongColumn), "grid");
}

std::optional<IaNodeId> join_grid3(Plan& plan, NodeId id) {
    const auto a = grid_axes(plan, id);
    if (!a) return std::nullopt;
    const Node& node = plan.program().node(id);
    const Node& left = plan.program().node(node.inputs.at(0));
    const Node& right = plan.program().node(node.inputs.at(1));
    const auto g = layered_shape(plan.sites(), left, right, node, *a);
    if (!g) return std::nullopt;
    using R = Placement::Replicate;
    return join_on(
        plan, id,
        Placement::layered_grid(a->r, a->lk, a->lk, g->rows, g->cols, g->layers, R::AlongRow),
        Placement::layered_grid(a->rk, a->c, a->rk, g->rows, g->cols, g->layers, R::AlongColumn),
        "grid3");
}

}  // namespace tra::optimizer
