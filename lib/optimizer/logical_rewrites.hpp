#pragma once
// Logical rewrites of a typed TRA program, applied before the physical search (the TRA paper's
// kernel-composition rules R1-x, Yuan et al., "Tensor Relational Algebra for Distributed Machine
// Learning System Design", section 5.2.1, Table 2; docs/cost-model.md, "Logical rewrites"): rules
// that never increase any relation's tuple count, so never the cost. Each rule is one small unit
// (rule_*.cpp): a match condition over key functions, key positions and kernel properties, and a
// rewrite of the step list (rule_steps.hpp) that is rebuilt through ProgramBuilder, so every new
// node's type and key set are inferred exactly.
//
// Every output keeps its name, type and key set; only nodes between change. Each application is
// recorded (rule + node) in the RewriteLog so `explain` can list what was done.
//
//   auto r = optimizer::apply_logical_rewrites(workflow::load_workflow(path));
//   optimizer::search_plans(r.program, sites, options);   // r.log: what was rewritten
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "optimizer/rule_steps.hpp"
#include "tra/program.hpp"

namespace tra::optimizer {

// A rule's result at one node: the whole rewritten step list and a line saying what changed.
struct RuleApplication {
    Steps steps;
    std::string detail;
};

struct RewriteRule {
    std::string id;    // the thesis' number, "R1-6"
    std::string name;  // "filter push-down through a join"
    // The rewrite at node `at`, or nullopt when the rule's precondition does not hold there.
    std::function<std::optional<RuleApplication>(const Program&, NodeId at)> try_at;
};

struct RewriteRecord {
    std::string rule;    // id, e.g. "R1-6"
    std::string name;    // the rule's name
    std::string node;    // the node the rule matched (its name in the program before the rewrite)
    std::string detail;  // e.g. "k0 == k1 pushed onto both operands of S: F.X, F.Y"

    // "R1-6 filter push-down through a join at F: k0 == k1 pushed onto ..."
    std::string str() const;
};
using RewriteLog = std::vector<RewriteRecord>;

struct RewriteResult {
    Program program;
    RewriteLog log;  // in the order applied
};

// The registry, in priority order: R1-1, R1-6, R1-5, R1-3, R1-2, R1-7, R1-4 (filters first, so
// maps pushed afterwards transform fewer tiles).
const std::vector<RewriteRule>& logical_rewrite_rules();
// The registered rule with this id; throws Error (Failed) for an unknown id.
const RewriteRule& logical_rewrite_rule(const std::string& id);

// Applies `rules` to a fixpoint: repeatedly the first rule (in list order) that matches at the
// first node (in program order). An application whose rebuilt program does not type-check (a
// pushed predicate failing on keys it now sees) is skipped, so a rewrite never adds an error.
RewriteResult apply_rewrites(const Program& program, const std::vector<RewriteRule>& rules);
// apply_rewrites with every registered rule.
RewriteResult apply_logical_rewrites(const Program& program);

// The rules' factories (one file each).
RewriteRule filter_fusion_rule();              // R1-1, rule_filter_fusion.cpp
RewriteRule filter_join_pushdown_rule();       // R1-6, rule_filter_join_pushdown.cpp
RewriteRule filter_aggregate_pushdown_rule();  // R1-5, rule_filter_aggregate_pushdown.cpp
RewriteRule filter_map_pushdown_rule();        // R1-3, rule_filter_map_pushdown.cpp
RewriteRule map_composition_rule();            // R1-2, rule_map_composition.cpp
RewriteRule map_join_pushdown_rule();          // R1-7, rule_map_join_pushdown.cpp
RewriteRule map_aggregate_pushdown_rule();     // R1-4, rule_map_aggregate_pushdown.cpp

// Shared by the filter rules: the node's only operand when that operand has exactly one user
// (`at`) and is not an output, so the rewrite may replace it; nullopt otherwise.
std::optional<NodeId> sole_use_operand(const Program& program, const Steps& steps, NodeId at);

}  // namespace tra::optimizer
