// R2-3, a map before an enforcer: λ(BCAST(R)) -> BCAST(λ(R)), and λ(SHUF(d)(R)) ->
// SHUF(d)(λ(R)) when the map's key function is the identity (a transform).
//
// A bcast puts every tuple everywhere whatever its key, so any map commutes with it; a shuffle
// places by key values, so only a map that keeps every key (a transform) commutes with it.
// Before the move, a map that shrinks tiles (diag, row_sum) moves fewer bytes; the driver keeps
// the rewrite only when it costs no more. Match: a map whose input is a bcast (any map) or a
// shuffle (transforms only) of whole tuples. Rewrite as R2-2: the map reads the enforcer's
// input, and a copy of the enforcer moving the map's relation replaces the map for its readers.
#include "optimizer/emit.hpp"
#include "optimizer/ia_rules.hpp"

namespace tra::optimizer {

namespace {

std::vector<IaRewrite> try_map_before_enforcer(const ia::Plan& plan, ia::IaNodeId at) {
    const ia::IaNode& map = plan.node(at);
    if (!is_map(map) || !moves_tuples(plan, map.inputs[0])) return {};
    const ia::IaNode& enforcer = plan.node(map.inputs[0]);
    const bool keeps_keys = map.logical && std::holds_alternative<TransformOp>(*map.logical);
    if (!is_bcast(enforcer) && !(is_shuffle(enforcer) && keeps_keys)) return {};
    PlanDraft draft(plan);
    ia::IaNode early = map;
    early.inputs = enforcer.inputs;
    add_rule(early, "R2-3");
    const ia::IaNodeId m = draft.insert_before(at, std::move(early));
    ia::IaNode move = enforcer;
    move.origin = map.origin;
    move.inputs = {m};
    add_rule(move, "R2-3");
    const ia::IaNodeId e = draft.insert_before(at, std::move(move));
    draft.redirect(at, e, "R2-3");
    return {{std::move(draft),
             "map moved before " + ia::op_name(enforcer.op) + " #" + std::to_string(enforcer.id)}};
}

}  // namespace

IaRule map_enforcer_rule() {
    return {"R2-3", "map before an enforcer", try_map_before_enforcer};
}

}  // namespace tra::optimizer
