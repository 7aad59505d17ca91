// local_join: a TRA join run on each site over the tuples that site holds; valid when its inputs
// are co-located on the join keys, or are the replicated relations of the join's RMM form.
#include <variant>

#include "ia/operator_spec.hpp"
#include "ia/replicated_join.hpp"

namespace tra::ia {

namespace {

bool computes_join(const Operator& op) {
    return std::holds_alternative<JoinOp>(op);
}

// A local join reading replicated relations must be exactly the RMM form of its TRA join.
PlacementInference replicated_join_placement(const Plan& plan, const IaNode& n,
                                             const JoinOp& applied) {
    const Node& origin = plan.program().node(n.origin);
    const auto* op = std::get_if<JoinOp>(&origin.op);
    if (!op) return PlacementInference::invalid("a local join must compute a TRA join");
    const Program& program = plan.program();
    const IaNode &l = plan.node(n.inputs[0]), &r = plan.node(n.inputs[1]);
    if (auto why = rmm_join_problem(*op, program.node(origin.inputs.at(0)),
                                    program.node(origin.inputs.at(1)), l.replicated.get(),
                                    r.replicated.get(), applied))
        return PlacementInference::invalid(*why);
    auto out = join_output_placement(l.placement, applied.left_keys, r.placement,
                                     applied.right_keys, plan.relation(l.id).type.key_arity);
    if (!out)
        return PlacementInference::invalid("replicated inputs are not co-located: left " +
                                           l.placement.str() + ", right " + r.placement.str() +
                                           " joined on every key position");
    return PlacementInference::valid(*out);
}

PlacementInference join_placement(const Plan& plan, const IaNode& n) {
    const auto* join = std::get_if<JoinOp>(&*n.logical);
    if (!join) return PlacementInference::invalid("a local join must apply a TRA join");
    if (plan.node(n.inputs[0]).replicated || plan.node(n.inputs[1]).replicated)
        return replicated_join_placement(plan, n, *join);
    const Placement &l = plan.node(n.inputs[0]).placement, &r = plan.node(n.inputs[1]).placement;
    auto out = join_output_placement(l, join->left_keys, r, join->right_keys,
                                     plan.origin(n.inputs[0]).type.key_arity);
    if (!out)
        return PlacementInference::invalid("inputs are not co-located on the join keys: left " +
                                           l.str() + ", right " + r.str() + " joined on " +
                                           positions_text(join->left_keys) + " = " +
                                           positions_text(join->right_keys));
    return PlacementInference::valid(*out);
}

}  // namespace

OperatorSpec local_join_operator() {
    OperatorSpec spec;
    spec.name = "local_join";
    spec.computes = computes_join;
    spec.arity = 2;
    spec.reads_replicated = true;
    spec.joins = true;
    spec.placement = join_placement;
    return spec;
}

}  // namespace tra::ia
