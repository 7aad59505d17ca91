// R1-1, filter fusion: σ_b1(σ_b2(R)) -> σ_(b2 && b1)(R).
//
// Match: a filter whose operand is a filter that nothing else reads and that is not an output
// (otherwise the inner filter would have to stay, and nothing is saved).
// Rewrite: the outer filter keeps its name and reads R with "(b2) && (b1)". Both texts are made
// positional first (rule_key_text.hpp) since they may name their parameters differently; b2
// comes first so, with &&'s short circuit, b1 is evaluated on exactly the keys it saw before.
// The key set is the same as before, so no tuple count grows.
#include "optimizer/logical_rewrites.hpp"
#include "optimizer/rule_key_text.hpp"

namespace tra::optimizer {

namespace {

std::optional<RuleApplication> try_fuse(const Program& p, NodeId at) {
    const Node& outer = p.node(at);
    const auto* b1 = std::get_if<FilterOp>(&outer.op);
    if (!b1) return std::nullopt;
    Steps steps = to_steps(p);
    const auto inner_id = sole_use_operand(p, steps, at);
    if (!inner_id) return std::nullopt;
    const Node& inner = p.node(*inner_id);
    const auto* b2 = std::get_if<FilterOp>(&inner.op);
    if (!b2) return std::nullopt;

    const std::string fused =
        "(" + positional_text(b2->where) + ") && (" + positional_text(b1->where) + ")";
    Step& s = steps.steps[steps.index(outer.name)];
    s.op = FilterOp{KeyFunction::parse(fused, outer.type.key_arity)};
    s.inputs = {p.node(inner.inputs[0]).name};
    steps.steps.erase(steps.steps.begin() + static_cast<std::ptrdiff_t>(steps.index(inner.name)));
    return RuleApplication{std::move(steps), "merged with filter " + inner.name + ": " + fused};
}

}  // namespace

RewriteRule filter_fusion_rule() {
    return {"R1-1", "filter fusion", try_fuse};
}

}  // namespace tra::optimizer
