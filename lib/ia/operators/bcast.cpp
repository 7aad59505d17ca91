// bcast: the same tuples, afterwards on every site (All). Paper cost f*S (section 5.3).
#include "ia/operator_spec.hpp"
#include "ia/transfer.hpp"

namespace tra::ia {

namespace {

double bcast_paper_cost(double floats, int sites, const Placement&) {
    return paper_bcast_cost(floats, sites);
}

PlacementInference bcast_placement(const Plan&, const IaNode&) {
    return PlacementInference::valid(Placement::all());
}

}  // namespace

OperatorSpec bcast_operator() {
    OperatorSpec spec;
    spec.name = "bcast";
    spec.enforcer = true;
    spec.paper_cost = bcast_paper_cost;
    spec.placement = bcast_placement;
    return spec;
}

}  // namespace tra::ia
