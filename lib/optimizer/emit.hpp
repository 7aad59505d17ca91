#pragma once
// Appending IA nodes to a plan under construction. Every node's placement is inferred from its
// inputs by the validator's own rules (infer_output_placement), so a strategy never states a
// placement it could get wrong; an invalid node gets Unknown and the strategy that emitted it
// reports "does not apply". Also: the single Table 1 rewrite of the TRA nodes that have no
// alternatives (input, filter, maps, concat).
#include <optional>
#include <string>

#include "ia/plan.hpp"

namespace tra::optimizer {

// Appends a node; `rule` names the strategy or rule that produced it (IaNode::rules). Returns
// its id, or nullopt when its placement cannot be inferred (the node is then not added).
std::optional<ia::IaNodeId> emit_node(ia::Plan& plan, ia::IaOp op, NodeId origin,
                                      std::vector<ia::IaNodeId> inputs, const std::string& rule,
                                      std::optional<Operator> logical = std::nullopt,
                                      KeyPositions shuffle_dims = {}, int map_arity = 1);

// Enforcers on the relation produced by IA node `in` (their origin is in's origin). An identical
// enforcer already in the plan (same op, same input, same dims) is reused, not duplicated: a
// relation broadcast for two joins is broadcast, and charged, once.
std::optional<ia::IaNodeId> emit_bcast(ia::Plan& plan, ia::IaNodeId in, const std::string& rule);
std::optional<ia::IaNodeId> emit_shuffle(ia::Plan& plan, ia::IaNodeId in, KeyPositions dims,
                                         const std::string& rule);
// A shuffle unless `in` is already in exactly Part(dims): moving to the same placement moves
// nothing, and a plan should not carry an enforcer that does nothing.
std::optional<ia::IaNodeId> shuffle_unless_there(ia::Plan& plan, ia::IaNodeId in,
                                                 const KeyPositions& dims,
                                                 const std::string& rule);

// An input node starting in `placement` (free: every site reads its own tuples in place).
ia::IaNodeId emit_input(ia::Plan& plan, NodeId id, const ia::Placement& placement);

// The single Table 1 rewrite of a filter, rekey, transform, tile or concat node whose inputs'
// results are set. Throws Error (Failed) for join, aggregate and input nodes, which have
// strategies, and when an emitted node is invalid (cannot happen for these operators).
ia::IaNodeId emit_table1(ia::Plan& plan, NodeId id);

// The IA node holding TRA node `tra`'s relation; throws Error (Failed) when not yet emitted.
ia::IaNodeId result_of(const ia::Plan& plan, NodeId tra);

}  // namespace tra::optimizer
