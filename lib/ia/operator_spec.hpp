#pragma once
// What one IA operator is, declared in one place: lib/ia/operators/<op>.cpp returns its
// OperatorSpec and one line of lib/ia/operators/operators.def registers it. Everything that
// differs per operator -- spelling, arity, whether it moves data and what that costs, how the
// validator infers its placement, how partials and replicated relations flow through it, its
// plan-file fields -- is a field here, so the validator, costs, site tracing, plan files and
// explain ask the spec instead of switching on IaOp.
//
// Adding an operator: its file here, its line in operators.def, and -- if it computes on a
// site -- its execution hook in runtime/local_step.cpp. Execution is not a field of the spec
// because lib/ia cannot depend on lib/runtime: the runtime keeps a table of hooks keyed by
// operator (local_run); enforcers all run through the one exchange (runtime/execution.cpp).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "ia/plan.hpp"
#include "ia/plan_validator.hpp"

namespace tra::ia {

struct OperatorSpec {
    IaOp op = IaOp::Input;  // set by the registry from operators.def
    std::string name;       // plan-file, explain and error-message spelling: "local_join"
    std::size_t arity = 1;  // inputs it takes

    // An enforcer moves its input's relation and applies no TRA operator. Its exact cost is the
    // bytes that move (exact_transfer), or a reduce when it moves partials (moves_partials);
    // its paper cost is paper_cost(f, S, target) for a relation of f floats.
    bool enforcer = false;
    // The TRA operators it computes as Table 1's local operator (a plan file's node for such a
    // TRA node names this op); null for enforcers and the partial aggregate.
    bool (*computes)(const Operator& op) = nullptr;
    double (*paper_cost)(double floats, int sites, const Placement& target) = nullptr;

    // Partial results (R2-5, ia/partials.hpp).
    bool makes_partials = false;     // its output holds partials (partial_aggregate)
    bool moves_partials = false;     // over partials, it reduces them to the groups' homes and
                                     // its output still holds them (shuffle)
    bool combines_partials = false;  // may read partials of its own relation (local_aggregate)

    // Replicated relations (IaNode::replicated, RMM joins).
    bool makes_replicas = false;    // with IaNode::replicated set it is a replication map (map)
    bool reads_replicated = false;  // a non-enforcer that may read replicated inputs (local_join)

    // Site tracing and per-site work.
    bool tuple_wise = false;  // each output tuple stays where its source tuple is (map, filter)
    bool joins = false;       // runs a TRA join's kernel per meeting pair: its flops, and a
                              // join+aggregate fusion (ia/fused_joins.hpp)
    // The group-by positions of an aggregating operator (Plan::aggregate_by); nullopt when the
    // node is not one it can group. Null for operators that do not aggregate.
    std::optional<KeyPositions> (*group_by)(const Plan&, const IaNode&) = nullptr;

    // Validation: `problem` (optional) runs before the input checks common to every operator
    // that read replicated relations; `placement` infers the output placement from the inputs'.
    std::optional<std::string> (*problem)(const Plan&, const IaNode&) = nullptr;
    PlacementInference (*placement)(const Plan&, const IaNode&) = nullptr;

    // What follows the name in a plan listing and in explain: "[0, 2]" for a shuffle, " x4" for
    // a map; null for nothing.
    std::string (*arguments)(const IaNode&) = nullptr;
    // Plan-file fields beyond id, op, origin, inputs, placement and rules.
    bool has_dims = false;   // `dims`: IaNode::shuffle_dims (shuffle)
    bool has_arity = false;  // `arity`: IaNode::map_arity, and `replicate` with makes_replicas
};

// The spec of `op`. Every IaOp has one (operators.def declares both together).
const OperatorSpec& operator_spec(IaOp op);
// Every spec, in operators.def order: what a plan file's `op` may name.
const std::vector<OperatorSpec>& operator_specs();
// The operator that computes TRA operator `op` (OperatorSpec::computes); every TRA operator
// has one.
const OperatorSpec& computing_operator(const Operator& op);

}  // namespace tra::ia
