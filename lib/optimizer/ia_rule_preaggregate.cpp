// R2-5, pre-aggregation before a shuffle (a combiner): Σ_(by, g)(SHUF(d)(R)) ->
// Σ_(by, g)(SHUF(0..|by|-1)(Σ^partial_(by, g)(R))).
//
// Each site folds the tuples of a group it holds into one partial, and only the partials move
// (a reduce, ia/partials.hpp); the home folds them. Sound only when g may fold in any grouping
// and order: the registry's associative and commutative (the thesis' condition is muddled; its
// note). A partial needs each tuple of R on one site (Part or an unreplicated Grid), else a
// replicated tuple would be counted once per copy; the validator checks it. Match: a local
// aggregate of a TRA aggregate (not a concat: concatenation is ordered) over a shuffle of whole
// tuples. The partials are shuffled on every output position. The driver keeps it only when
// the reduce moves fewer bytes than the shuffle did, i.e. when groups really span sites.
#include "optimizer/ia_rules.hpp"

namespace tra::optimizer {

namespace {

std::vector<IaRewrite> try_combine(const ia::Plan& plan, ia::IaNodeId at) {
    const ia::IaNode& agg = plan.node(at);
    if (agg.op != ia::IaOp::LocalAggregate || !agg.logical) return {};
    const auto* op = std::get_if<AggregateOp>(&*agg.logical);
    if (!op || !op->kernel.properties().aggregation()) return {};
    const ia::IaNodeId shuffle = agg.inputs[0];
    if (plan.node(shuffle).op != ia::IaOp::Shuffle || !moves_tuples(plan, shuffle)) return {};

    PlanDraft draft(plan);
    ia::IaNode partial;
    partial.op = ia::IaOp::PartialAggregate;
    partial.origin = agg.origin;
    partial.inputs = plan.node(shuffle).inputs;
    partial.logical = agg.logical;
    partial.rules = {"R2-5"};
    const ia::IaNodeId p = draft.insert_before(at, std::move(partial));
    ia::IaNode reduce;
    reduce.op = ia::IaOp::Shuffle;
    reduce.origin = agg.origin;
    reduce.inputs = {p};
    for (std::size_t i = 0; i < op->by.size(); ++i) reduce.shuffle_dims.push_back(i);
    reduce.rules = {"R2-5"};
    const ia::IaNodeId s = draft.insert_before(at, std::move(reduce));
    ia::IaNode& n = draft.mutable_node(at);
    n.inputs = {s};
    add_rule(n, "R2-5");
    return {{std::move(draft), "partials of " + op->kernel.str() + " shuffled instead of #" +
                                   std::to_string(shuffle)}};
}

}  // namespace

IaRule preaggregate_rule() {
    return {"R2-5", "pre-aggregation before a shuffle", try_combine};
}

}  // namespace tra::optimizer
