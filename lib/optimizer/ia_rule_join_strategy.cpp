// R2-6, the join strategies are equivalent:
//   ⋈(BCAST(L), R) ≡ ⋈(L, BCAST(R)) ≡ ⋈(SHUF(jl)(L), SHUF(jr)(R)).
//
// Each is correct because its inputs are co-located on the join keys (ia/placement.hpp): a
// broadcast side meets every tuple of the other, provided that side holds each tuple once or
// is itself All (thesis note; join_output_placement decides), and a co-shuffle needs the same
// partition function of the join-key values on both sides, in matching order -- which Part's
// site function is. Match: any local join. Its operands are taken from before their enforcers
// (a bcast, shuffle or grid move of whole tuples), and the rule offers each other strategy as
// an alternative: bcast-left, bcast-right, cmm (a side already on Part of its join keys is not
// shuffled). The search (strategy.hpp) enumerates the same strategies, plus grid and rmm; this
// rule is what lets a compiled plan reach them by rewriting. It `explores`: a strategy change
// often pays only once R2-4/R2-7 drop the shuffle after it, so the driver judges each
// alternative after that cleanup.
#include "optimizer/ia_rules.hpp"

namespace tra::optimizer {

namespace {

using ia::IaNode;
using ia::IaNodeId;
using ia::IaOp;

// The operand before its enforcer.
IaNodeId unmoved(const ia::Plan& plan, IaNodeId in) {
    return moves_tuples(plan, in) ? plan.node(in).inputs[0] : in;
}

IaNodeId move(PlanDraft& draft, const ia::Plan& plan, IaNodeId before, IaNodeId in, IaOp op,
              KeyPositions dims = {}) {
    IaNode n;
    n.op = op;
    n.origin = plan.node(in).origin;
    n.inputs = {in};
    n.shuffle_dims = std::move(dims);
    n.rules = {"R2-6"};
    return draft.insert_before(before, std::move(n));
}

std::vector<IaRewrite> try_strategies(const ia::Plan& plan, IaNodeId at) {
    const IaNode& join = plan.node(at);
    if (join.op != IaOp::LocalJoin || !join.logical) return {};
    const auto& op = std::get<JoinOp>(*join.logical);
    const IaNodeId l = unmoved(plan, join.inputs[0]), r = unmoved(plan, join.inputs[1]);

    std::vector<IaRewrite> out;
    auto offer = [&](const std::string& name, auto&& make_inputs) {
        PlanDraft draft(plan);
        std::vector<IaNodeId> inputs = make_inputs(draft);
        if (inputs == join.inputs) return;  // already this strategy
        IaNode& n = draft.mutable_node(at);
        n.inputs = std::move(inputs);
        add_rule(n, "R2-6:" + name);
        out.push_back({std::move(draft), name});
    };
    offer("bcast-left", [&](PlanDraft& d) {
        return std::vector<IaNodeId>{move(d, plan, at, l, IaOp::Bcast), r};
    });
    offer("bcast-right", [&](PlanDraft& d) {
        return std::vector<IaNodeId>{l, move(d, plan, at, r, IaOp::Bcast)};
    });
    offer("cmm", [&](PlanDraft& d) {
        auto side = [&](IaNodeId in, const KeyPositions& keys) {
            return plan.node(in).placement == ia::Placement::part(keys)
                       ? in
                       : move(d, plan, at, in, IaOp::Shuffle, keys);
        };
        return std::vector<IaNodeId>{side(l, op.left_keys), side(r, op.right_keys)};
    });
    return out;
}

}  // namespace

IaRule join_strategy_rule() {
    return {"R2-6", "join strategy equivalence", try_strategies, true};
}

}  // namespace tra::optimizer
