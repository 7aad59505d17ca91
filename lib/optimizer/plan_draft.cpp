#include "optimizer/plan_draft.hpp"

#include <algorithm>
#include <map>

#include "core/error.hpp"
#include "ia/plan_validator.hpp"

namespace tra::optimizer {

using ia::IaNode;
using ia::IaNodeId;

void add_rule(IaNode& node, const std::string& rule) {
    if (std::find(node.rules.begin(), node.rules.end(), rule) == node.rules.end())
        node.rules.push_back(rule);
}

PlanDraft::PlanDraft(const ia::Plan& plan) : base_(&plan), next_id_(plan.size()) {
    for (const IaNode& n : plan.nodes()) nodes_.push_back(n);
    for (const auto& [tra, ia] : plan.results()) results_.emplace_back(tra, ia);
}

std::size_t PlanDraft::position(IaNodeId id) const {
    for (std::size_t i = 0; i < nodes_.size(); ++i)
        if (nodes_[i].id == id) return i;
    throw Error("internal: no IA node #" + std::to_string(id) + " in the draft", {},
                ErrorKind::Failed);
}

const IaNode& PlanDraft::node(IaNodeId id) const {
    return nodes_[position(id)];
}

IaNode& PlanDraft::mutable_node(IaNodeId id) {
    return nodes_[position(id)];
}

IaNodeId PlanDraft::insert_before(IaNodeId before, IaNode node) {
    const IaNodeId id = next_id_++;
    node.id = id;
    node.cost = {};
    nodes_.insert(nodes_.begin() + static_cast<std::ptrdiff_t>(position(before)), std::move(node));
    return id;
}

void PlanDraft::redirect(IaNodeId from, IaNodeId to, const std::string& rule) {
    for (IaNode& n : nodes_) {
        if (n.id == to) continue;
        bool changed = false;
        for (IaNodeId& in : n.inputs)
            if (in == from) in = to, changed = true;
        if (changed) add_rule(n, rule);
    }
    for (auto& [tra, ia] : results_)
        if (ia == from) ia = to;
}

std::optional<ia::Plan> PlanDraft::build() const {
    // Keep what some result depends on: walk back from the results.
    std::map<IaNodeId, bool> needed;
    for (const auto& [tra, ia] : results_) needed[ia] = true;
    for (auto n = nodes_.rbegin(); n != nodes_.rend(); ++n)
        if (needed.count(n->id))
            for (IaNodeId in : n->inputs) needed[in] = true;

    ia::Plan plan(base_->program(), base_->sites());
    std::map<IaNodeId, IaNodeId> renumbered;
    for (const IaNode& old : nodes_) {
        if (!needed.count(old.id)) continue;
        IaNode n = old;
        n.id = plan.size();
        n.cost = {};
        for (IaNodeId& in : n.inputs) {
            auto it = renumbered.find(in);
            if (it == renumbered.end()) return std::nullopt;  // an input after its reader
            in = it->second;
        }
        auto inferred = ia::infer_output_placement(plan, n);
        if (!inferred.placement) return std::nullopt;
        n.placement = *inferred.placement;
        renumbered[old.id] = n.id;
        plan.add(std::move(n));
    }
    for (const auto& [tra, ia] : results_) plan.set_result(tra, renumbered.at(ia));
    if (ia::validation_problem(plan)) return std::nullopt;
    return plan;
}

}  // namespace tra::optimizer
