#pragma once
// An IA plan being rewritten by a physical rule (ia_rules.hpp). A Plan is append-only with ids
// that are positions, which suits building but not editing; a draft holds the nodes in execution
// order under stable ids, so a rule can insert a node before another, point readers elsewhere or
// change a node's inputs, and `build` turns it back into a Plan: nodes no result depends on are
// dropped, ids become positions again and every placement is re-inferred by the validator's
// rules (a rule never states a placement it could get wrong).
#include <optional>
#include <string>
#include <vector>

#include "ia/plan.hpp"

namespace tra::optimizer {

class PlanDraft {
  public:
    explicit PlanDraft(const ia::Plan& plan);

    const ia::Plan& base() const { return *base_; }
    // The node with stable id `id` (for nodes of the base plan: its id there).
    const ia::IaNode& node(ia::IaNodeId id) const;
    ia::IaNode& mutable_node(ia::IaNodeId id);

    // Inserts `node` right before node `before` (its inputs must precede it) under a fresh id,
    // which it returns. Costs and placement are left to `build`.
    ia::IaNodeId insert_before(ia::IaNodeId before, ia::IaNode node);
    // Every reader of `from` (node inputs and TRA results) reads `to` instead, except `to`
    // itself; each redirected node records `rule`.
    void redirect(ia::IaNodeId from, ia::IaNodeId to, const std::string& rule);

    // The rewritten plan, or nullopt when some node's placement cannot be inferred or the plan
    // does not validate. Nodes keep their `rules`.
    std::optional<ia::Plan> build() const;

  private:
    std::size_t position(ia::IaNodeId id) const;

    const ia::Plan* base_;
    std::vector<ia::IaNode> nodes_;  // execution order; IaNode::id is the stable id
    std::vector<std::pair<NodeId, ia::IaNodeId>> results_;
    ia::IaNodeId next_id_;
};

// Records `rule` on a node once.
void add_rule(ia::IaNode& node, const std::string& rule);

}  // namespace tra::optimizer
