// R2-4 (corrected), no shuffle before an aggregate whose input is ALREADY partitioned on a
// subset of its group keys: Σ_(by)(SHUF(d)(R)) -> Σ_(by)(R) when R is Part(D) with D ⊆ by, or All.
//
// The thesis states the condition on the shuffle's dims (partDims ⊆ by), which would delete
// CMM's shuffle of partial products; what makes a local aggregate correct is that every group
// is on one site BEFORE it, i.e. the placement of R itself (thesis note). Part(D) with D ⊆ by
// sends equal group keys to one site; All has every group whole everywhere. Match: a local
// aggregate (or concat) whose input is a shuffle of whole tuples, over R placed that way.
// The same holds for Σ(SHUF(partial Σ(R))): the partials of whole groups are the groups.
// Rewrite: the aggregate reads R. Its output placement changes (Part of D's positions within by,
// or All); the validator re-checks every reader.
#include <algorithm>

#include "optimizer/emit.hpp"
#include "optimizer/ia_rules.hpp"

namespace tra::optimizer {

namespace {

bool groups_whole(const ia::Placement& p, const KeyPositions& by) {
    if (p.kind() == ia::Placement::Kind::All) return true;
    if (p.kind() != ia::Placement::Kind::Part) return false;
    return std::all_of(p.dims().begin(), p.dims().end(), [&](std::size_t d) {
        return std::find(by.begin(), by.end(), d) != by.end();
    });
}

std::vector<IaRewrite> try_drop_shuffle_before_aggregate(const ia::Plan& plan, ia::IaNodeId at) {
    const ia::IaNode& agg = plan.node(at);
    if (!is_local_aggregate(agg)) return {};
    const ia::IaNodeId shuffle = agg.inputs[0];
    if (!is_shuffle(plan.node(shuffle))) return {};
    ia::IaNodeId from = plan.node(shuffle).inputs[0];
    // A pre-aggregation (R2-5) of an input that turns out to hold each group whole goes too:
    // the partials would be the finished groups, already at home.
    KeyPositions by;
    if (is_partial_aggregate(plan.node(from))) {
        from = plan.node(from).inputs[0];
        by = std::get<AggregateOp>(*agg.logical).by;  // on R's key, not the partials'
    } else if (moves_tuples(plan, shuffle)) {
        by = plan.aggregate_by(agg);
    } else {
        return {};
    }
    const ia::IaNode& r = plan.node(from);
    if (!groups_whole(r.placement, by)) return {};
    PlanDraft draft(plan);
    ia::IaNode& n = draft.mutable_node(at);
    n.inputs = {r.id};
    add_rule(n, "R2-4");
    return {{std::move(draft), "shuffle #" + std::to_string(shuffle) + " dropped: #" +
                                   std::to_string(r.id) + " is already " + r.placement.str()}};
}

}  // namespace

IaRule aggregate_in_place_rule() {
    return {"R2-4", "no shuffle before an aggregate already partitioned on group keys",
            try_drop_shuffle_before_aggregate};
}

}  // namespace tra::optimizer
