// shuffle(d): the same tuples, afterwards on Part(d) (d ordered, IaNode::shuffle_dims). Over
// partials (R2-5) it is the reduce to the groups' homes: every holder but the home sends its own
// partial, and the output still holds partials for the combining local_aggregate.
#include <string>

#include "ia/operator_spec.hpp"
#include "ia/transfer.hpp"

namespace tra::ia {

namespace {

double shuffle_paper_cost(double floats, int, const Placement&) {
    return paper_shuffle_cost(floats);
}

PlacementInference shuffle_placement(const Plan& plan, const IaNode& n) {
    std::size_t arity = plan.relation(n.inputs[0]).type.key_arity;
    for (std::size_t d : n.shuffle_dims)
        if (d >= arity)
            return PlacementInference::invalid("shuffle position " + std::to_string(d) +
                                               " is outside the key of arity " +
                                               std::to_string(arity));
    return PlacementInference::valid(Placement::part(n.shuffle_dims));
}

std::string shuffle_arguments(const IaNode& n) {
    return positions_text(n.shuffle_dims);
}

}  // namespace

OperatorSpec shuffle_operator() {
    OperatorSpec spec;
    spec.name = "shuffle";
    spec.enforcer = true;
    spec.paper_cost = shuffle_paper_cost;
    spec.moves_partials = true;
    spec.placement = shuffle_placement;
    spec.arguments = shuffle_arguments;
    spec.has_dims = true;
    return spec;
}

}  // namespace tra::ia
