// local_filter: a TRA filter, tuple by tuple; each accepted tuple stays on its site.
#include <variant>

#include "ia/operator_spec.hpp"

namespace tra::ia {

namespace {

bool computes_filter(const Operator& op) {
    return std::holds_alternative<FilterOp>(op);
}

PlacementInference filter_placement(const Plan& plan, const IaNode& n) {
    if (!std::holds_alternative<FilterOp>(*n.logical))
        return PlacementInference::invalid("a local filter must apply a TRA filter");
    return PlacementInference::valid(plan.node(n.inputs[0]).placement);
}

}  // namespace

OperatorSpec local_filter_operator() {
    OperatorSpec spec;
    spec.name = "local_filter";
    spec.computes = computes_filter;
    spec.tuple_wise = true;
    spec.placement = filter_placement;
    return spec;
}

}  // namespace tra::ia
