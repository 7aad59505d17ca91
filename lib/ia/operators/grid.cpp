// grid: the same tuples, afterwards on the node's stored Grid placement (possibly replicated
// along a grid axis): SUMMA's operand layouts (ia/grid_move.hpp). The target grid is a choice,
// not derivable from the input, so it is stored on the node and only checked here.
#include "ia/grid_move.hpp"
#include "ia/operator_spec.hpp"

namespace tra::ia {

namespace {

double grid_paper_cost(double floats, int, const Placement& target) {
    return paper_grid_cost(floats, target);
}

PlacementInference grid_placement(const Plan& plan, const IaNode& n) {
    auto why = grid_move_problem(n.placement, plan.relation(n.inputs[0]).type.key_arity);
    if (why) return PlacementInference::invalid(*why);
    return PlacementInference::valid(n.placement);
}

}  // namespace

OperatorSpec grid_operator() {
    OperatorSpec spec;
    spec.name = "grid";
    spec.enforcer = true;
    spec.paper_cost = grid_paper_cost;
    spec.placement = grid_placement;
    return spec;
}

}  // namespace tra::ia
