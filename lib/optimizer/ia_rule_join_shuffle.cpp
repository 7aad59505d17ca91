// R2-7 (corrected), no shuffle after a join whose output is ALREADY partitioned on a subset of
// the shuffle's dims: SHUF(d')(⋈(SHUF(jl)(L), SHUF(jr)(R))) -> ⋈(...) when the join's output
// is Part(D) with D ⊆ d' (after a co-shuffle D = jl: joinKeysL ⊆ partDims).
//
// The thesis prints partDims ⊆ joinKeysL, which is the wrong way round (its note): Part(D)
// implies Part(D') as a grouping only for D ⊆ D' -- tuples that agree on d' agree on D, so they
// are on one site already, which is what a reader of SHUF(d') (an aggregate on d', a join on
// d') needs. Match: a shuffle of whole tuples straight after a local join placed that way.
// Rewrite: its readers read the join; the validator re-checks each of them with the join's
// placement, so a reader that needed exactly Part(d') keeps the shuffle.
#include <algorithm>

#include "optimizer/emit.hpp"
#include "optimizer/ia_rules.hpp"

namespace tra::optimizer {

namespace {

std::vector<IaRewrite> try_drop_shuffle_after_join(const ia::Plan& plan, ia::IaNodeId at) {
    const ia::IaNode& shuffle = plan.node(at);
    if (!is_shuffle(shuffle) || !moves_tuples(plan, at)) return {};
    const ia::IaNode& join = plan.node(shuffle.inputs[0]);
    if (!is_local_join(join) || join.placement.kind() != ia::Placement::Kind::Part) return {};
    const KeyPositions& d = join.placement.dims();
    const KeyPositions& to = shuffle.shuffle_dims;
    if (!std::all_of(d.begin(), d.end(),
                     [&](std::size_t p) { return std::find(to.begin(), to.end(), p) != to.end(); }))
        return {};
    PlanDraft draft(plan);
    draft.redirect(at, join.id, "R2-7");
    return {{std::move(draft), "shuffle dropped: join #" + std::to_string(join.id) +
                                   " is already " + join.placement.str()}};
}

}  // namespace

IaRule join_shuffle_rule() {
    return {"R2-7", "no shuffle after a co-partitioned join", try_drop_shuffle_after_join};
}

}  // namespace tra::optimizer
