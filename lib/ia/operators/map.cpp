// map: one input tuple -> `map_arity` output tuples, on the input tuple's site: a TRA rekey,
// transform or tile; or a fill, which also makes tiles of zeros (at ia::fill_sites); or a
// replication map (no logical operator, IaNode::replicated set): each tuple copied under inserted
// key positions (ia/replication.hpp), for RMM joins.
#include <string>
#include <variant>

#include "ia/operator_spec.hpp"
#include "ia/replication.hpp"

namespace tra::ia {

namespace {

bool computes_map(const Operator& op) {
    return std::holds_alternative<RekeyOp>(op) || std::holds_alternative<TransformOp>(op) ||
           std::holds_alternative<TileOp>(op) || std::holds_alternative<FillOp>(op);
}

PlacementInference map_placement(const Placement& in, const Operator& op) {
    // A rekey may send any key anywhere in key space while the tuple stays on its site, so the
    // site can no longer be computed from the new key -- unless every site holds every tuple.
    if (std::holds_alternative<RekeyOp>(op))
        return PlacementInference::valid(in.kind() == Placement::Kind::All ? Placement::all()
                                                                           : Placement::unknown());
    // Transform keeps keys; tile appends a key position, so positions a placement reads stay;
    // a fill makes its tiles of zeros where the placement puts them (ia::fill_sites).
    if (std::holds_alternative<TransformOp>(op) || std::holds_alternative<TileOp>(op) ||
        std::holds_alternative<FillOp>(op))
        return PlacementInference::valid(in);
    return PlacementInference::invalid("a map applies a rekey, transform, tile or fill, not a " +
                                       operator_name(op));
}

// A replication map (IaNode::replicated, no logical operator): it copies its origin's own
// relation, once, by a valid spec; the copies stay on their source's sites.
PlacementInference replication_placement(const Plan& plan, const IaNode& n) {
    const IaNode& in = plan.node(n.inputs[0]);
    if (in.origin != n.origin)
        return PlacementInference::invalid(
            "a replication map copies its origin's relation, but its input #" +
            std::to_string(in.id) + " holds '" + plan.origin(in.id).name + "'");
    if (in.replicated) return PlacementInference::invalid("its input is already replicated");
    const Replication& spec = n.replicated->spec;
    if (auto why = spec.problem(plan.program().node(n.origin).type.key_arity))
        return PlacementInference::invalid("bad replication " + spec.str() + ": " + *why);
    if (n.map_arity != spec.arity())
        return PlacementInference::invalid(
            "replication " + spec.str() + " makes " + std::to_string(spec.arity()) +
            " copies per tuple, the map says arity " + std::to_string(n.map_arity));
    return PlacementInference::valid(replicated_placement(in.placement, spec));
}

PlacementInference placement_of_map(const Plan& plan, const IaNode& n) {
    if (n.replicated) return replication_placement(plan, n);
    return map_placement(plan.node(n.inputs[0]).placement, *n.logical);
}

std::string map_arguments(const IaNode& n) {
    std::string s;
    if (n.map_arity != 1) s += " x" + std::to_string(n.map_arity);
    if (n.replicated) s += " " + n.replicated->spec.str();
    return s;
}

}  // namespace

OperatorSpec map_operator() {
    OperatorSpec spec;
    spec.name = "map";
    spec.computes = computes_map;
    spec.makes_replicas = true;
    spec.tuple_wise = true;
    spec.placement = placement_of_map;
    spec.arguments = map_arguments;
    spec.has_arity = true;
    return spec;
}

}  // namespace tra::ia
