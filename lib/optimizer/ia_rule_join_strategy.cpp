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

// How a join operand is obtained: the relation before its enforcer and the move (none: Input).
struct Side {
    IaNodeId from;
    IaOp move = IaOp::Input;
    KeyPositions dims;
    friend bool operator==(const Side&, const Side&) = default;
};

Side in_place(IaNodeId in) {
    return {in, IaOp::Input, {}};
}

Side side_of(const ia::Plan& plan, IaNodeId in) {
    if (!moves_tuples(plan, in)) return in_place(in);
    const IaNode& e = plan.node(in);
    return {e.inputs[0], e.op, e.shuffle_dims};
}

IaNodeId emit_side(PlanDraft& draft, const ia::Plan& plan, IaNodeId before, const Side& side) {
    if (side.move == IaOp::Input) return side.from;
    IaNode n;
    n.op = side.move;
    n.origin = plan.node(side.from).origin;
    n.inputs = {side.from};
    n.shuffle_dims = side.dims;
    n.rules = {"R2-6"};
    return draft.insert_before(before, std::move(n));
}

std::vector<IaRewrite> try_strategies(const ia::Plan& plan, IaNodeId at) {
    const IaNode& join = plan.node(at);
    if (join.op != IaOp::LocalJoin || !join.logical) return {};
    const auto& op = std::get<JoinOp>(*join.logical);
    const Side now_l = side_of(plan, join.inputs[0]), now_r = side_of(plan, join.inputs[1]);
    const IaNodeId l = now_l.from, r = now_r.from;
    // cmm: a side already on Part of its join keys stays where it is.
    auto co_shuffled = [&](IaNodeId in, const KeyPositions& keys) {
        return plan.node(in).placement == ia::Placement::part(keys) ? in_place(in)
                                                                    : Side{in, IaOp::Shuffle, keys};
    };
    const std::vector<std::pair<std::string, std::pair<Side, Side>>> strategies = {
        {"bcast-left", {{l, IaOp::Bcast, {}}, in_place(r)}},
        {"bcast-right", {in_place(l), {r, IaOp::Bcast, {}}}},
        {"cmm", {co_shuffled(l, op.left_keys), co_shuffled(r, op.right_keys)}},
    };
    std::vector<IaRewrite> out;
    for (const auto& [name, sides] : strategies) {
        if (sides.first == now_l && sides.second == now_r) continue;  // the join's own strategy
        PlanDraft draft(plan);
        const IaNodeId new_l = emit_side(draft, plan, at, sides.first);
        const IaNodeId new_r = emit_side(draft, plan, at, sides.second);
        IaNode& n = draft.mutable_node(at);
        n.inputs = {new_l, new_r};
        add_rule(n, "R2-6:" + name);
        out.push_back({std::move(draft), name});
    }
    return out;
}

}  // namespace

IaRule join_strategy_rule() {
    return {"R2-6", "join strategy equivalence", try_strategies, true};
}

}  // namespace tra::optimizer
