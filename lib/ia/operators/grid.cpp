// grid: the same tuples, afterwards on the node's stored Grid placement (possibly replicated
// along a grid axis): SUMMA's operand layouts (ia/grid_move.hpp). The target grid is a choice,
// not derivable from the input, so it is stored on the node and only checked here. Over
// partials (R2-5) it is the reduce to the groups' homes on an unreplicated grid, as a shuffle is
// to Part homes: a grid spreads a box of groups smaller than S over every site, Part does not.
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
    if (plan.holds_partials(n.inputs[0]) && n.placement.replicated())
        return PlacementInference::invalid("partials reduce to one home per group, not to " +
                                           n.placement.str());
    return PlacementInference::valid(n.placement);
}

}  // namespace

OperatorSpec grid_operator() {
    OperatorSpec spec;
    spec.name = "grid";
    spec.enforcer = true;
    spec.moves_partials = true;
    spec.paper_cost = grid_paper_cost;
    spec.placement = grid_placement;
    return spec;
}

}  // namespace tra::ia
