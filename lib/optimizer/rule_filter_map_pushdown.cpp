// R1-3, filter push-down below a map with the identity key function:
// σ_b(λ_(id, a)(R)) -> λ_(id, a)(σ_b(R)).
//
// In tra the maps with the identity key function are the transforms. The transform keeps every
// key, so b reads the same positions of the same keys either way and needs no re-indexing; the
// transform then runs only on the tiles that survive (fewer kernel calls, and in an IA plan
// fewer tiles to move after it). Match: the transform is read only by this filter and is not an
// output, and its kernel does not read its tile's position (argmin reads the relation's
// frontier, which the filter may change). Names as in R1-5: the transform keeps its name unless
// the filter is an output; the pushed filter is FILTER.OPERAND.
// Tuple counts: the pushed filter has at most R's tuples; the transform's key set is the old
// filter's.
#include "optimizer/logical_rewrites.hpp"
#include "optimizer/rule_key_text.hpp"

namespace tra::optimizer {

namespace {

std::optional<RuleApplication> try_push_filter_below_map(const Program& p, NodeId at) {
    const Node& filter = p.node(at);
    const auto* f = std::get_if<FilterOp>(&filter.op);
    if (!f) return std::nullopt;
    const Node& map = p.node(filter.inputs[0]);
    const auto* t = std::get_if<TransformOp>(&map.op);
    if (!t || t->kernel.properties().reads_tile_position) return std::nullopt;
    Steps steps = to_steps(p);
    if (!sole_use_operand(p, steps, at)) return std::nullopt;
    const Node& operand = p.node(map.inputs[0]);

    const std::string text = positional_text(f->where);
    Step pushed = filter_step(steps.fresh_name(filter.name + "." + operand.name), operand.name,
                              operand.type.key_arity, text, filter.where);
    Step new_map = steps.steps[steps.index(map.name)];
    new_map.inputs = {pushed.name};
    const std::string detail = text + " pushed below transform " + map.name + ": " + pushed.name +
                               " = filter " + operand.name + " by " + text;
    swap_down(steps, filter.name, map.name, {pushed}, std::move(new_map));
    return RuleApplication{std::move(steps), detail};
}

}  // namespace

RewriteRule filter_map_pushdown_rule() {
    return {"R1-3", "filter push-down below a map", try_push_filter_below_map};
}

}  // namespace tra::optimizer
