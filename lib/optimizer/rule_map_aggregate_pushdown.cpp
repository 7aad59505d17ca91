// R1-4, map push-down below an aggregation: λ_(id, a)(Σ_(by, g)(R)) -> Σ_(by, g)(λ_(id, a)(R))
// when a distributes over g: a(g(x, y)) == g(a(x), a(y)) (the registry's `distributes_over`).
//
// Only this second form of the thesis' R1-4 is built. The first form, Σ_(by, a∘g), is sound
// only when a is applied once per group after the fold (a finalizer, thesis note), and an
// aggregate kernel here is one associative fold with no finalizer; it would also save nothing.
// The pushed form pays off when a shrinks tiles (diag, row_sum of each tile): the aggregate then
// moves and folds the small tiles. So the match requires a strictly smaller output tile than
// input tile, besides: the aggregate is read only by this transform and is not an output, and
// the kernel does not read its tile's position. Names: the aggregate keeps its name (pins) unless
// the transform is an output; the pushed transform is MAP.OPERAND.
// Tuple counts: the pushed transform has R's tuples with smaller tiles (fewer bytes than R);
// the aggregate's key set is unchanged.
#include "optimizer/distributing_transform.hpp"
#include "optimizer/logical_rewrites.hpp"

namespace tra::optimizer {

namespace {

std::optional<RuleApplication> try_push_map_below_aggregate(const Program& p, NodeId at) {
    const auto match = distributing_transform<AggregateOp>(p, at);
    if (!match) return std::nullopt;
    const Node& map = match->map;
    const TransformOp* t = &match->transform;
    const Node& agg = match->below;
    const AggregateOp* a = &match->op;
    const Node& operand = p.node(agg.inputs[0]);
    const auto bytes = transformed_tile_bytes(t->kernel, operand.type);
    if (!bytes || *bytes >= operand.type.tile_bytes()) return std::nullopt;
    Steps steps = to_steps(p);
    if (!sole_use_operand(p, steps, at)) return std::nullopt;

    Step pushed = transform_step(steps.fresh_name(map.name + "." + operand.name), operand.name,
                                 t->kernel, map.where);
    Step new_agg = steps.steps[steps.index(agg.name)];
    new_agg.inputs = {pushed.name};
    const std::string detail = t->kernel.str() + " distributes over " + a->kernel.name() +
                               ", applied below " + agg.name + ": " + pushed.name +
                               " = transform " + operand.name;
    swap_down(steps, map.name, agg.name, {pushed}, std::move(new_agg));
    return RuleApplication{std::move(steps), detail};
}

}  // namespace

RewriteRule map_aggregate_pushdown_rule() {
    return {"R1-4", "map push-down below an aggregation", try_push_map_below_aggregate};
}

}  // namespace tra::optimizer
