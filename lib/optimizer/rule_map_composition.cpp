// R1-2, map composition: λ_(k1,a1)(λ_(k2,a2)(R)) -> λ_(k1∘k2, a1∘a2)(R) for maps of arity 1.
//
// tra splits the thesis' map into two single-purpose operators, rekey (key function, identity
// on tiles) and transform (kernel, identity on keys), so the rule has two forms:
//   rekey of a rekey        one rekey whose key function is k1∘k2: k1's text with each position
//                           it reads replaced by k2's result there (rule_key_text.hpp);
//   transform of a rekey    the composed map λ_(k, a) written array function first: the rekey
//                           over a transform of R. A transform over a rekey would keep the
//                           rekey between it and a join or aggregate below, which is where R1-4
//                           and R1-7 want the transform; so this order is the normal form.
// Two transforms are not composed: the registry has no composed kernels.
// Match: the inner map is read only by the outer one and is not an output; a transform that
// reads its tile's position (argmin) stays where it is, since the rekey changes that position.
// Tuple counts: a rekey is one-to-one, so every relation keeps the count it had; the composed
// rekey's result is the outer's exactly.
#include "optimizer/logical_rewrites.hpp"
#include "optimizer/rule_key_text.hpp"

namespace tra::optimizer {

namespace {

std::optional<RuleApplication> compose_rekeys(const Program& p, Steps steps, const Node& outer,
                                              const Node& inner) {
    const auto& k1 = std::get<RekeyOp>(outer.op).key;
    const auto& k2 = std::get<RekeyOp>(inner.op).key;
    const Node& operand = p.node(inner.inputs[0]);
    const std::string composed = substituted_text(k1, result_texts(k2));
    Step& s = steps.steps[steps.index(outer.name)];
    s.op = RekeyOp{KeyFunction::parse(composed, operand.type.key_arity)};
    s.inputs = {operand.name};
    steps.steps.erase(steps.steps.begin() + static_cast<std::ptrdiff_t>(steps.index(inner.name)));
    return RuleApplication{std::move(steps), "composed with rekey " + inner.name + ": " + composed};
}

std::optional<RuleApplication> transform_first(const Program& p, Steps steps, const Node& outer,
                                               const Node& inner) {
    const auto& t = std::get<TransformOp>(outer.op);
    if (t.kernel.properties().reads_tile_position) return std::nullopt;
    const Node& operand = p.node(inner.inputs[0]);
    Step pushed = transform_step(steps.fresh_name(outer.name + "." + operand.name), operand.name,
                                 t.kernel, outer.where);
    Step rekey = steps.steps[steps.index(inner.name)];
    rekey.inputs = {pushed.name};
    const std::string detail = t.kernel.str() + " applied before rekey " + inner.name + ": " +
                               pushed.name + " = transform " + operand.name;
    swap_down(steps, outer.name, inner.name, {pushed}, std::move(rekey));
    return RuleApplication{std::move(steps), detail};
}

std::optional<RuleApplication> try_compose(const Program& p, NodeId at) {
    const Node& outer = p.node(at);
    const bool rekey = std::holds_alternative<RekeyOp>(outer.op);
    if (!rekey && !std::holds_alternative<TransformOp>(outer.op)) return std::nullopt;
    // The operand's operator first: building the steps costs a copy of the program.
    if (!std::holds_alternative<RekeyOp>(p.node(outer.inputs[0]).op)) return std::nullopt;
    Steps steps = to_steps(p);
    const auto inner_id = sole_use_operand(p, steps, at);
    if (!inner_id) return std::nullopt;
    const Node& inner = p.node(*inner_id);
    return rekey ? compose_rekeys(p, std::move(steps), outer, inner)
                 : transform_first(p, std::move(steps), outer, inner);
}

}  // namespace

RewriteRule map_composition_rule() {
    return {"R1-2", "map composition", try_compose};
}

}  // namespace tra::optimizer
