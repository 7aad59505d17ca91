#pragma once
// Physical rewrite rules over IA plans: R2-1 .. R2-7 of the TRA paper (Yuan et al., "Tensor
// Relational Algebra for Distributed Machine Learning System Design", section 5.2.1, Table 2),
// with the conditions corrected where the printed ones are unsound (docs/cost-model.md,
// "Physical rewrite rules (R2)"), each one small unit (ia_rule_*.cpp) whose precondition is code
// over placements, key positions and kernel properties, and whose rewrite edits a PlanDraft.
//
//   R2-1  enforcer(enforcer(R)) -> enforcer(R)                        ia_rule_enforcer_chain.cpp
//   R2-2  filter(enforcer(R)) -> enforcer(filter(R))                  ia_rule_filter_enforcer.cpp
//   R2-3  map(bcast(R)) -> bcast(map(R)); map(shuffle(R)) -> shuffle(map(R)) for a transform
//         (identity key map)                                          ia_rule_map_enforcer.cpp
//   R2-4  Σ(shuffle(R)) -> Σ(R) when R is ALREADY Part(D), D ⊆ by, or All; also
//         Σ(shuffle(partial Σ(R))) -> Σ(R) then      ia_rule_aggregate_in_place.cpp
//   R2-5  Σ(shuffle(R)) -> Σ(shuffle(partial Σ(R))) when the kernel is associative and commutative
//         and R holds each tuple on one site: the `preagg` strategy  ia_rule_strategies.cpp
//   R2-6  the join strategies bcast-left, bcast-right, cmm are equivalent: each is an
//         alternative rewrite of a local join                        ia_rule_strategies.cpp
//   R2-7  shuffle(D')(join) -> join when the join's output is ALREADY Part(D) with D ⊆ D'
//         (joinKeysL ⊆ partDims)                                     ia_rule_join_shuffle.cpp
//
// The driver applies rules to a fixpoint and keeps a rewrite only when the plan validates and
// costs no more: exact payload bytes and payload + overhead both no larger, and one of them, or
// the node count, smaller (so it terminates).
//
// One mechanism for physical choices: R2-5 and R2-6 `changes_strategy`: they are views of the
// strategy registry (strategy.hpp): they apply the strategies the search enumerates, tagged with
// their id, to a complete plan; no rule encodes bcast, cmm or preagg again. The search itself
// enumerates those strategies under their own names and normalises each complete plan with the
// other rules of this one list (normalise_plan). Rules marked `explores` (R2-6) change a strategy
// whose benefit may show only after the other rules clean up, so each of their alternatives is
// judged after that cleanup. Every node a rule creates or changes lists the rule in `rules`, so
// `explain` shows it.
//
//   auto r = optimizer::apply_ia_rules(ia::compile_initial(program, sites));
//   r.plan, r.totals, r.log
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ia/plan.hpp"
#include "ia/plan_costs.hpp"
#include "optimizer/logical_rewrites.hpp"
#include "optimizer/plan_draft.hpp"

namespace tra::optimizer {

// One way a rule rewrites a plan at a node.
struct IaRewrite {
    PlanDraft draft;
    std::string detail;  // e.g. "bcast-right", "shuffle[0, 2] of #3 dropped"
};

struct IaRule {
    std::string id;    // "R2-4"
    std::string name;  // "no shuffle before an aggregate already partitioned on group keys"
    // The rewrites at IA node `at` (several for R2-6's alternatives); empty when the
    // precondition does not hold there.
    std::function<std::vector<IaRewrite>(const ia::Plan&, ia::IaNodeId at)> try_at;
    // Judge each rewrite after the rules that do not explore have cleaned up after it.
    bool explores = false;
    // It picks another physical strategy (a view of the strategy registry): the search, which
    // enumerates strategies itself, leaves it out of its normalisation.
    bool changes_strategy = false;
};

// The registry, in priority order: R2-1, R2-2, R2-3, R2-7, R2-4, R2-5, R2-6. The search reaches
// every rule: R2-5 and R2-6 as the strategies they view, the others through normalise_plan.
const std::vector<IaRule>& ia_rules();
// The registered rule with this id; throws Error (Failed) for an unknown id.
const IaRule& ia_rule(const std::string& id);

struct IaRewriteResult {
    ia::Plan plan;
    ia::PlanTotals totals;
    RewriteLog log;  // node: the IA node the rule matched, "#3"
};

// Applies `rules` (default: all) to a fixpoint as described above. The input plan must be valid.
IaRewriteResult apply_ia_rules(const ia::Plan& plan, const std::vector<IaRule>& rules);
IaRewriteResult apply_ia_rules(const ia::Plan& plan);

// The registered rules that do not change a strategy (R2-1, R2-2, R2-3, R2-7, R2-4), in order.
const std::vector<IaRule>& normalising_ia_rules();

// The search's final normalisation (search.hpp): normalising_ia_rules applied to a complete plan
// whose costs are `totals`. Nullopt when none applies, which costs only the matching: nothing is
// re-costed.
std::optional<IaRewriteResult> normalise_plan(const ia::Plan& plan, const ia::PlanTotals& totals);

// Whether totals `b` are an improvement the driver accepts over `a` (plans of sizes bn, an).
bool ia_rewrite_improves(const ia::PlanTotals& a, std::size_t an, const ia::PlanTotals& b,
                         std::size_t bn);

// The rules' factories (one file each).
IaRule enforcer_chain_rule();      // R2-1
IaRule filter_enforcer_rule();     // R2-2
IaRule map_enforcer_rule();        // R2-3
IaRule aggregate_in_place_rule();  // R2-4
IaRule preaggregate_rule();        // R2-5, a view of the strategy registry
IaRule join_strategy_rule();       // R2-6, a view of the strategy registry
IaRule join_shuffle_rule();        // R2-7

// Shared by the rules: whether IA node `id` is an enforcer that moves whole tuples (a bcast,
// shuffle or grid move that does not carry partials).
bool moves_tuples(const ia::Plan& plan, ia::IaNodeId id);

}  // namespace tra::optimizer
