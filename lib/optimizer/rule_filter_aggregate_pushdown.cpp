// R1-5, filter push-down below an aggregation: σ_b(Σ_(by, op)(R)) -> Σ_(by, op)(σ_b'(R)).
//
// The aggregate's output key is R's key projected onto `by`, so output position q is R's
// position by[q] and every predicate over the output reads group-by positions only (the
// thesis' precondition). b' is b re-indexed through `by`. A group is kept whole or dropped whole
// by b', so the kept groups fold exactly the same tiles in the same order: results are
// bit-identical, whatever the kernel.
// Match also needs the aggregate to be read only by this filter and not be an output. Names as
// in R1-6: the new aggregate keeps the aggregate's name unless the filter is an output; the
// pushed filter is FILTER.OPERAND.
// Tuple counts: the new aggregate's key set is the old filter's; the pushed filter has at most
// R's tuples.
#include "optimizer/logical_rewrites.hpp"
#include "optimizer/rule_key_text.hpp"

namespace tra::optimizer {

namespace {

std::optional<RuleApplication> try_push_filter_below_aggregate(const Program& p, NodeId at) {
    const Node& filter = p.node(at);
    const auto* f = std::get_if<FilterOp>(&filter.op);
    if (!f) return std::nullopt;
    Steps steps = to_steps(p);
    const auto agg_id = sole_use_operand(p, steps, at);
    if (!agg_id) return std::nullopt;
    const Node& agg = p.node(*agg_id);
    const auto* a = std::get_if<AggregateOp>(&agg.op);
    if (!a) return std::nullopt;
    const Node& operand = p.node(agg.inputs[0]);

    std::vector<std::optional<std::size_t>> to_operand(a->by.begin(), a->by.end());
    const std::optional<std::string> text = reindexed_text(f->where, to_operand);
    if (!text) return std::nullopt;  // cannot happen (every output position is a group key)

    Step pushed = filter_step(steps.fresh_name(filter.name + "." + operand.name), operand.name,
                              operand.type.key_arity, *text, filter.where);
    Step new_agg = steps.steps[steps.index(agg.name)];
    new_agg.inputs = {pushed.name};
    const bool keep_filter_name = steps.is_output(filter.name);
    if (keep_filter_name) new_agg.name = filter.name;

    const std::size_t old_agg_at = steps.index(agg.name);
    steps.steps[steps.index(filter.name)] = new_agg;
    steps.steps.erase(steps.steps.begin() + static_cast<std::ptrdiff_t>(old_agg_at));
    // The pushed filter goes right where the aggregate was: after R, before its new reader.
    steps.steps.insert(steps.steps.begin() + static_cast<std::ptrdiff_t>(old_agg_at), pushed);
    if (!keep_filter_name) steps.redirect(filter.name, agg.name);
    return RuleApplication{std::move(steps), f->where.text() + " pushed below " + agg.name + ": " +
                                                 pushed.name + " = filter " + operand.name +
                                                 " by " + *text};
}

}  // namespace

RewriteRule filter_aggregate_pushdown_rule() {
    return {"R1-5", "filter push-down below an aggregation", try_push_filter_below_aggregate};
}

}  // namespace tra::optimizer
