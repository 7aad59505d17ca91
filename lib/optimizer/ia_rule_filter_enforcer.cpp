// R2-2, a filter before an enforcer: σ(E(R)) -> E(σ(R)) for E a bcast, shuffle or grid move.
//
// A filter works tuple by tuple and keeps each kept tuple's site, so filtering before or after
// a move leaves the same tuples in the same places; before it, the rejected tuples are not
// moved. Match: a local filter whose input is an enforcer of whole tuples. Rewrite: the filter
// reads the enforcer's input, and a copy of the enforcer (same op and dims, now moving the
// filter's relation) takes the filter's place for its readers. The old enforcer goes if nothing
// else reads it.
#include "optimizer/emit.hpp"
#include "optimizer/ia_rules.hpp"

namespace tra::optimizer {

namespace {

std::vector<IaRewrite> try_filter_before_enforcer(const ia::Plan& plan, ia::IaNodeId at) {
    const ia::IaNode& filter = plan.node(at);
    if (!is_local_filter(filter) || !moves_tuples(plan, filter.inputs[0])) return {};
    const ia::IaNode& enforcer = plan.node(filter.inputs[0]);
    PlanDraft draft(plan);
    ia::IaNode early = filter;
    early.inputs = enforcer.inputs;
    add_rule(early, "R2-2");
    const ia::IaNodeId f = draft.insert_before(at, std::move(early));
    ia::IaNode move = enforcer;
    move.origin = filter.origin;
    move.inputs = {f};
    add_rule(move, "R2-2");
    const ia::IaNodeId e = draft.insert_before(at, std::move(move));
    draft.redirect(at, e, "R2-2");
    return {{std::move(draft), "filter moved before " + ia::op_name(enforcer.op) + " #" +
                                   std::to_string(enforcer.id)}};
}

}  // namespace

IaRule filter_enforcer_rule() {
    return {"R2-2", "filter before an enforcer", try_filter_before_enforcer};
}

}  // namespace tra::optimizer
