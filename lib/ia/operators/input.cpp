// input: a TRA input, read or generated in place by every site, so free. Where it starts is a
// choice stored on the node (the search tries several); it must be a known placement.
#include <variant>

#include "ia/operator_spec.hpp"

namespace tra::ia {

namespace {

bool computes_input(const Operator& op) {
    return std::holds_alternative<InputOp>(op);
}

PlacementInference input_placement(const Plan&, const IaNode& n) {
    if (n.placement.kind() == Placement::Kind::Unknown)
        return PlacementInference::invalid("an input must start in a known placement");
    return PlacementInference::valid(n.placement);
}

}  // namespace

OperatorSpec input_operator() {
    OperatorSpec spec;
    spec.name = "input";
    spec.computes = computes_input;
    spec.arity = 0;
    spec.placement = input_placement;
    return spec;
}

}  // namespace tra::ia
