// partial_aggregate: a TRA aggregate run per site over what each site holds, where groups MAY
// span sites (R2-5): one partial per (group, site holding a tuple of it). Only a shuffle (the
// reduce to the groups' homes) or the combining local_aggregate may consume partials.
#include <variant>

#include "ia/operator_spec.hpp"

namespace tra::ia {

namespace {

std::optional<KeyPositions> partial_group_by(const Plan&, const IaNode& n) {
    if (n.logical)
        if (const auto* agg = std::get_if<AggregateOp>(&*n.logical)) return agg->by;
    return std::nullopt;
}

std::optional<std::string> partial_problem(const Plan& plan, const IaNode& n) {
    if (!std::holds_alternative<AggregateOp>(*n.logical))
        return "a partial aggregate must apply a TRA aggregate";
    // A replicated tuple would be folded into a partial on every site holding it and then
    // counted once per copy by the combine; an Unknown input may be replicated.
    const Placement& in = plan.node(n.inputs[0]).placement;
    if (in.kind() != Placement::Kind::Part &&
        !(in.kind() == Placement::Kind::Grid && !in.replicated()))
        return "its input is " + in.str() +
               "; a partial aggregate needs each tuple on exactly one site (Part or an "
               "unreplicated Grid)";
    return std::nullopt;
}

PlacementInference partial_placement(const Plan&, const IaNode&) {
    // Where a group's partials are depends on which input keys exist, not on the group's key
    // values: no placement function describes it (ia/partials.hpp).
    return PlacementInference::valid(Placement::unknown());
}

}  // namespace

OperatorSpec partial_aggregate_operator() {
    OperatorSpec spec;
    spec.name = "partial_aggregate";
    spec.makes_partials = true;
    spec.group_by = partial_group_by;
    spec.problem = partial_problem;
    spec.placement = partial_placement;
    return spec;
}

}  // namespace tra::ia
