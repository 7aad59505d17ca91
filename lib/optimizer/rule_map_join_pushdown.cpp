// R1-7, map push-down through a join: λ_(id, a)(⋈_(jl, jr, g)(L, R)) -> ⋈_(jl, jr, g)(λ_(id,
// a)(L), λ_(id, a)(R)) when a distributes over the join kernel g: a(g(x, y)) == g(a(x), a(y))
// (the registry's `distributes_over`; diag over add in the thesis' diag(X+Y)).
//
// Only maps with the identity key function (transforms) are pushed: the thesis' first form
// fuses a key map into the join's output key, which tra's join does not have (R1-2 moves a
// transform below a rekey so that it reaches the join). The pushed form pays off when a does not
// grow tiles: the join then moves and combines the mapped tiles. So the match requires, for each
// operand, a mapped tile no larger than the operand's, besides: the join is read only by this
// transform and is not an output, and the kernel does not read its tile's position. join(X, X)
// maps X once. Names: the join keeps its name (pins) unless the transform is an output; the
// pushed transforms are MAP.OPERAND.
// Tuple counts: each pushed transform has its operand's tuples and no larger tiles; the join's
// key set is unchanged.
#include "optimizer/distributing_transform.hpp"
#include "optimizer/logical_rewrites.hpp"

namespace tra::optimizer {

namespace {

std::optional<RuleApplication> try_push_map_through_join(const Program& p, NodeId at) {
    const auto match = distributing_transform<JoinOp>(p, at);
    if (!match) return std::nullopt;
    const Node& map = match->map;
    const TransformOp* t = &match->transform;
    const Node& join = match->below;
    const JoinOp* j = &match->op;
    for (NodeId in : join.inputs) {
        const auto bytes = transformed_tile_bytes(t->kernel, p.node(in).type);
        if (!bytes || *bytes > p.node(in).type.tile_bytes()) return std::nullopt;
    }
    Steps steps = to_steps(p);
    if (!sole_use_operand(p, steps, at)) return std::nullopt;

    std::vector<Step> pushed;
    Step new_join = steps.steps[steps.index(join.name)];
    std::string detail = t->kernel.str() + " distributes over " + j->kernel.name() +
                         ", applied to the operands of " + join.name + ":";
    for (std::size_t side = 0; side < 2; ++side) {
        const Node& operand = p.node(join.inputs[side]);
        if (side == 1 && join.inputs[1] == join.inputs[0]) {
            new_join.inputs[1] = new_join.inputs[0];
            break;
        }
        Step s = transform_step(steps.fresh_name(map.name + "." + operand.name), operand.name,
                                t->kernel, map.where);
        new_join.inputs[side] = s.name;
        detail += (side ? ", " : " ") + s.name + " = transform " + operand.name;
        pushed.push_back(std::move(s));
    }
    swap_down(steps, map.name, join.name, pushed, std::move(new_join));
    return RuleApplication{std::move(steps), detail};
}

}  // namespace

RewriteRule map_join_pushdown_rule() {
    return {"R1-7", "map push-down through a join", try_push_map_through_join};
}

}  // namespace tra::optimizer
