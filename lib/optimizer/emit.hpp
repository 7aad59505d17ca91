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
                                                 const KeyPositions& dims, const std::string& rule);

// Local operators computing TRA node `id`, applying its operator (a join may be given the
// operator it applies instead: the RMM form joins on every key position). Nullopt when the
// validator rejects the node's placement.
std::optional<ia::IaNodeId> emit_local_join(ia::Plan& plan, NodeId id, ia::IaNodeId left,
                                            ia::IaNodeId right, const std::string& rule,
                                            std::optional<JoinOp> applied = std::nullopt);
std::optional<ia::IaNodeId> emit_local_aggregate(ia::Plan& plan, NodeId id, ia::IaNodeId in,
                                                 const std::string& rule);
// Partial results of aggregate `id` per site (R2-5), for a shuffle and a combining aggregate.
std::optional<ia::IaNodeId> emit_partial_aggregate(ia::Plan& plan, NodeId id, ia::IaNodeId in,
                                                   const std::string& rule);
// Whether aggregate `id` could run on `in` where it is: the validator's rule, asked of a
// trial node that is not added.
bool aggregates_in_place(const ia::Plan& plan, NodeId id, ia::IaNodeId in);

// A replication map of the relation IA node `in` holds (RMM's A*): it carries the replicated
// relation instead of a logical operator.
std::optional<ia::IaNodeId> emit_replication(ia::Plan& plan, ia::IaNodeId in,
                                             const ia::Replication& spec, const std::string& rule);
// A grid enforcer moving `in` to `target`: its output placement is the choice stored on it.
std::optional<ia::IaNodeId> emit_grid_move(ia::Plan& plan, ia::IaNodeId in,
                                           const ia::Placement& target, const std::string& rule);

// Which operator a node is, for rules matching plan shapes.
bool is_bcast(const ia::IaNode& n);
bool is_shuffle(const ia::IaNode& n);
bool is_map(const ia::IaNode& n);
bool is_local_filter(const ia::IaNode& n);
bool is_local_join(const ia::IaNode& n);
bool is_local_aggregate(const ia::IaNode& n);
bool is_partial_aggregate(const ia::IaNode& n);

// An input node starting in `placement` (free: every site reads its own tuples in place).
ia::IaNodeId emit_input(ia::Plan& plan, NodeId id, const ia::Placement& placement);

// The single Table 1 rewrite of a filter, rekey, transform, tile or concat node whose inputs'
// results are set. Throws Error (Failed) for join, aggregate and input nodes, which have
// strategies, and when an emitted node is invalid (cannot happen for these operators).
ia::IaNodeId emit_table1(ia::Plan& plan, NodeId id);

// The IA node holding TRA node `tra`'s relation; throws Error (Failed) when not yet emitted.
ia::IaNodeId result_of(const ia::Plan& plan, NodeId tra);

// TRA node `id` of the plan's program.
inline const Node& tra_node(const ia::Plan& plan, NodeId id) {
    return plan.program().node(id);
}

}  // namespace tra::optimizer
