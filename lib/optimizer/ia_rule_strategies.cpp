// R2-5 and R2-6, the rules that change a physical strategy, as views of the strategy registry
// (strategy.hpp): each offers the registered strategies tagged with its id (Strategy::
// thesis_rule) as alternative rewrites of a complete plan, so bcast, cmm and preagg are encoded
// once, in the strategies the search runs.
//
//   R2-6  the join strategies are equivalent:
//         ⋈(BCAST(L), R) ≡ ⋈(L, BCAST(R)) ≡ ⋈(SHUF(jl)(L), SHUF(jr)(R))
//         (bcast-left, bcast-right, cmm). Each is correct because its inputs are co-located on
//         the join keys (ia/placement.hpp). It `explores`: a strategy change often pays only
//         once R2-4/R2-7 drop the shuffle after it, so the driver judges each alternative after
//         that cleanup.
//   R2-5  pre-aggregation before a shuffle (a combiner): Σ_(by, g)(SHUF(d)(R)) ->
//         Σ_(by, g)(SHUF(0..|by|-1)(Σ^partial_(by, g)(R))) (preagg). Sound only when g is
//         associative and commutative (the strategy's validity: the partial aggregate needs each
//         tuple of R on one site, and preagg applies only when groups really span sites).
//
// Match: a local join or local aggregate producing a TRA node that has strategies. Its operands
// are taken from before their enforcers (a bcast, shuffle or grid move of whole tuples); each
// must be the TRA operand's own relation (not replicated). The strategy is applied to a copy of
// the plan whose TRA operands resolve to those nodes; the nodes it appends are inserted before
// the matched node, which takes the new inputs. A strategy that rebuilds the node's current
// sub-plan (the join's own strategy) is no rewrite.
#include <map>

#include "optimizer/emit.hpp"
#include "optimizer/ia_rules.hpp"
#include "optimizer/strategy.hpp"

namespace tra::optimizer {

namespace {

using ia::IaNode;
using ia::IaNodeId;

// The node before the enforcer feeding a matched node's input (the input itself if none).
IaNodeId operand_of(const ia::Plan& plan, IaNodeId in) {
    return moves_tuples(plan, in) ? plan.node(in).inputs.at(0) : in;
}

// The operands of node `at` by TRA input, or nullopt when one is not that input's relation or
// two readings of one TRA input disagree.
std::optional<std::map<NodeId, IaNodeId>> operands(const ia::Plan& plan, const IaNode& at) {
    const std::vector<NodeId>& tra_inputs = plan.program().node(at.origin).inputs;
    if (tra_inputs.size() != at.inputs.size()) return std::nullopt;
    std::map<NodeId, IaNodeId> out;
    for (std::size_t i = 0; i < at.inputs.size(); ++i) {
        const IaNodeId o = operand_of(plan, at.inputs[i]);
        const IaNode& n = plan.node(o);
        if (n.replicated || n.origin != tra_inputs[i] || plan.holds_partials(o))
            return std::nullopt;
        auto [it, fresh] = out.emplace(tra_inputs[i], o);
        if (!fresh && it->second != o) return std::nullopt;
    }
    return out;
}

// `strategy` applied at `at` as a draft, or nullopt when it does not apply or rebuilds what is
// there.
std::optional<IaRewrite> rewrite_with(const ia::Plan& plan, IaNodeId at, const Strategy& strategy,
                                      const std::map<NodeId, IaNodeId>& operands) {
    const IaNode& matched = plan.node(at);
    ia::Plan scratch = plan;  // shares the nodes; the strategy appends after them
    for (const auto& [tra, ia] : operands) scratch.set_result(tra, ia);
    const std::optional<IaNodeId> made = strategy.apply(scratch, matched.origin);
    const IaNodeId base = plan.size();
    if (!made || *made < base || scratch.node(*made).op != matched.op) return std::nullopt;

    PlanDraft draft(plan);
    std::map<IaNodeId, IaNodeId> moved;  // scratch id -> draft id, for appended nodes
    auto in_draft = [&](IaNodeId id) { return id < base ? id : moved.at(id); };
    for (IaNodeId id = base; id < *made; ++id) {
        IaNode n = scratch.node(id);
        for (IaNodeId& in : n.inputs) in = in_draft(in);
        moved[id] = draft.insert_before(at, std::move(n));
    }
    std::vector<IaNodeId> inputs;
    for (IaNodeId in : scratch.node(*made).inputs) inputs.push_back(in_draft(in));
    if (inputs == matched.inputs) return std::nullopt;  // the node's own strategy
    IaNode& n = draft.mutable_node(at);
    n.inputs = std::move(inputs);
    for (const std::string& rule : scratch.node(*made).rules) add_rule(n, rule);
    return IaRewrite{std::move(draft), strategy.name};
}

IaRule strategy_view(std::string id, std::string name, bool explores) {
    auto try_at = [id](const ia::Plan& plan, IaNodeId at) {
        std::vector<IaRewrite> out;
        const IaNode& n = plan.node(at);
        if ((!is_local_join(n) && !is_local_aggregate(n)) || !n.logical) return out;
        const auto ops = operands(plan, n);
        if (!ops) return out;
        for (const Strategy& s : strategies_for(*n.logical))
            if (s.thesis_rule == id)
                if (auto rw = rewrite_with(plan, at, s, *ops)) out.push_back(std::move(*rw));
        return out;
    };
    return IaRule{std::move(id), std::move(name), try_at, explores, true};
}

}  // namespace

IaRule preaggregate_rule() {
    return strategy_view("R2-5", "pre-aggregation before a shuffle", false);
}

IaRule join_strategy_rule() {
    return strategy_view("R2-6", "join strategy equivalence", true);
}

}  // namespace tra::optimizer
