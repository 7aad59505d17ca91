#include "ia/plan_validator.hpp"

#include <string>
#include <utility>
#include <variant>

#include "core/error.hpp"
#include "ia/operator_spec.hpp"

namespace tra::ia {

namespace {

PlacementInference invalid(std::string why) {
    return PlacementInference::invalid(std::move(why));
}

// Partial results (R2-5) are not a relation: a key has one partial per site that computed one.
// Only the operator that moves them (the reduce to the groups' homes) and the one combining them
// may read them; anything else would treat a partial as the group's value.
std::optional<std::string> partials_problem(const Plan& plan, const IaNode& n,
                                            const OperatorSpec& spec) {
    for (IaNodeId in : n.inputs) {
        const bool partial = plan.holds_partials(in);
        const bool same = plan.node(in).origin == n.origin;
        const bool combines = spec.combines_partials && n.logical &&
                              std::holds_alternative<AggregateOp>(*n.logical) && same;
        // Partials move once, from where they were computed to their homes: costing a second
        // move would need partial counts per site, which nothing needs.
        if (partial && spec.moves_partials && !operator_spec(plan.node(in).op).makes_partials)
            return "its input #" + std::to_string(in) +
                   " holds partials already shuffled; shuffle them once, from the "
                   "partial_aggregate";
        if (partial && !spec.moves_partials && !combines)
            return "its input #" + std::to_string(in) +
                   " holds partial results, which only a shuffle or the local_aggregate of the "
                   "same relation (combining them) may consume";
        if (!partial && same && spec.combines_partials)
            return "a local aggregate reads its TRA operand, or partial results of its own "
                   "relation; input #" +
                   std::to_string(in) + " is neither";
    }
    return spec.problem ? spec.problem(plan, n) : std::nullopt;
}

}  // namespace

PlacementInference infer_output_placement(const Plan& plan, const IaNode& n) {
    const OperatorSpec& spec = operator_spec(n.op);
    if (n.inputs.size() != spec.arity)
        return invalid("it has " + std::to_string(n.inputs.size()) + " inputs, " + spec.name +
                       " takes " + std::to_string(spec.arity));
    for (IaNodeId in : n.inputs)
        if (in >= n.id) return invalid("input #" + std::to_string(in) + " does not precede it");
    const bool replication = spec.makes_replicas && n.replicated;
    if (n.replicated && !replication && !spec.enforcer)
        return invalid("only a map (replication) or an enforcer holds a replicated relation");
    if (!spec.enforcer && !n.logical && !replication) return invalid("it has no logical operator");
    if (auto why = partials_problem(plan, n, spec)) return invalid(*why);
    for (IaNodeId in : n.inputs)
        if (plan.node(in).replicated && !spec.enforcer && !spec.reads_replicated)
            return invalid("its input #" + std::to_string(in) +
                           " holds a replicated relation, which only enforcers and the "
                           "replicated (rmm) join read");
    return spec.placement(plan, n);
}

std::optional<std::string> validation_problem(const Plan& plan) {
    for (const IaNode& n : plan.nodes()) {
        auto problem = [&](const std::string& why) {
            return "IA node #" + std::to_string(n.id) + " (" + op_name(n.op) + " producing '" +
                   plan.origin(n.id).name + "'): " + why;
        };
        for (IaNodeId in : n.inputs)
            if (in < n.id && is_enforcer(n.op) && plan.node(in).origin != n.origin)
                return problem("an enforcer must move its input's relation (origin '" +
                               plan.origin(in).name + "')");
        const Placement& p = n.placement;
        if (p.grid_sites() > plan.sites())
            return problem("placement " + p.str() + " needs " + std::to_string(p.grid_sites()) +
                           " sites, the plan has " + std::to_string(plan.sites()));
        PlacementInference inferred = infer_output_placement(plan, n);
        if (!inferred.placement) return problem(inferred.why);
        if (!(*inferred.placement == p))
            return problem("it claims placement " + p.str() + " but produces " +
                           inferred.placement->str());
    }
    return std::nullopt;
}

void validate(const Plan& plan) {
    if (auto problem = validation_problem(plan)) throw Error(*problem, {}, ErrorKind::BadInput);
}

}  // namespace tra::ia
