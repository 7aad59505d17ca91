// R2-1, enforcer chains collapse: BCAST(BCAST(R)) -> BCAST(R), SHUF(d2)(SHUF(d1)(R)) ->
// SHUF(d2)(R), and any enforcer after another (a grid move included).
//
// Match: an enforcer whose input is an enforcer of whole tuples (not partials: a shuffle of
// partials is a reduce, which the second move must follow). Rewrite: the outer enforcer reads
// the inner one's input; the inner one goes if nothing else reads it. An enforcer's output
// placement does not depend on where its input was, so every placement stays; and moving
// straight from P to Q never moves more than via M, tuple by tuple: |Q \ P| <= |M \ P| + |Q \ M|.
#include "optimizer/ia_rules.hpp"

namespace tra::optimizer {

namespace {

std::vector<IaRewrite> try_collapse(const ia::Plan& plan, ia::IaNodeId at) {
    const ia::IaNode& outer = plan.node(at);
    if (!ia::is_enforcer(outer.op) || !moves_tuples(plan, outer.inputs[0])) return {};
    const ia::IaNode& inner = plan.node(outer.inputs[0]);
    PlanDraft draft(plan);
    ia::IaNode& n = draft.mutable_node(at);
    n.inputs = inner.inputs;
    add_rule(n, "R2-1");
    return {{std::move(draft), ia::op_name(inner.op) + " #" + std::to_string(inner.id) +
                                   " skipped: #" + std::to_string(at) + " moves from #" +
                                   std::to_string(inner.inputs[0])}};
}

}  // namespace

IaRule enforcer_chain_rule() {
    return {"R2-1", "enforcer chain collapse", try_collapse};
}

}  // namespace tra::optimizer
