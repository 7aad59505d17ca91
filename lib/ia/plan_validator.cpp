#include "ia/plan_validator.hpp"

#include <algorithm>
#include <string>
#include <variant>

#include "core/error.hpp"
#include "ia/grid_move.hpp"
#include "ia/replicated_join.hpp"

namespace tra::ia {

namespace {

std::string positions(const KeyPositions& p) {
    std::string s = "[";
    for (std::size_t i = 0; i < p.size(); ++i) s += (i ? ", " : "") + std::to_string(p[i]);
    return s + "]";
}

PlacementInference invalid(std::string why) { return {std::nullopt, std::move(why)}; }
PlacementInference valid(Placement p) { return {std::move(p), {}}; }

// Index of `pos` within `by`, or nullopt.
std::optional<std::size_t> index_in(const KeyPositions& by, std::size_t pos) {
    auto it = std::find(by.begin(), by.end(), pos);
    if (it == by.end()) return std::nullopt;
    return static_cast<std::size_t>(it - by.begin());
}

PlacementInference aggregate_placement(const Placement& in, const KeyPositions& by) {
    switch (in.kind()) {
        case Placement::Kind::All: return valid(Placement::all());
        case Placement::Kind::Unknown:
            return invalid("its input's placement is Unknown, so a group may span sites");
        case Placement::Kind::Part: {
            // Tuples of one group agree on `by`, hence on d when d is a subset of by: one site.
            KeyPositions out;
            for (std::size_t d : in.dims()) {
                auto i = index_in(by, d);
                if (!i)
                    return invalid("its input is " + in.str() + " but key position " +
                                   std::to_string(d) + " is not grouped on (by " +
                                   positions(by) + "), so a group may span sites");
                out.push_back(*i);
            }
            return valid(Placement::part(out));
        }
        case Placement::Kind::Grid: {
            auto r = index_in(by, in.dims()[0]), c = index_in(by, in.dims()[1]);
            if (in.replicated() || !r || !c)
                return invalid("its input is " + in.str() + ", which does not keep each group (by " +
                               positions(by) + ") on one site");
            return valid(Placement::grid(*r, *c, in.grid_rows(), in.grid_cols()));
        }
    }
    return invalid("unknown placement kind");
}

PlacementInference map_placement(const Placement& in, const Operator& op) {
    // A rekey may send any key anywhere in key space while the tuple stays on its site, so the
    // site can no longer be computed from the new key -- unless every site holds every tuple.
    if (std::holds_alternative<RekeyOp>(op))
        return valid(in.kind() == Placement::Kind::All ? Placement::all() : Placement::unknown());
    // Transform keeps keys; tile appends a key position, so positions a placement reads stay.
    if (std::holds_alternative<TransformOp>(op) || std::holds_alternative<TileOp>(op))
        return valid(in);
    return invalid("a map applies a rekey, transform or tile, not a " + operator_name(op));
}

std::size_t expected_inputs(IaOp op) {
    switch (op) {
        case IaOp::Input: return 0;
        case IaOp::LocalJoin: return 2;
        default: return 1;
    }
}

// Partial results (R2-5) are not a relation: a key has one partial per site that computed one.
// Only a shuffle (the reduce to the groups' homes) and the local aggregate combining them may
// read them; anything else would treat a partial as the group's value.
std::optional<std::string> partials_problem(const Plan& plan, const IaNode& n) {
    for (IaNodeId in : n.inputs) {
        const bool partial = plan.holds_partials(in);
        const bool same = plan.node(in).origin == n.origin;
        const bool combines = n.op == IaOp::LocalAggregate && n.logical &&
                              std::holds_alternative<AggregateOp>(*n.logical) && same;
        // Partials move once, from where they were computed to their homes: costing a second
        // move would need partial counts per site, which nothing needs.
        if (partial && n.op == IaOp::Shuffle && plan.node(in).op != IaOp::PartialAggregate)
            return "its input #" + std::to_string(in) +
                   " holds partials already shuffled; shuffle them once, from the "
                   "partial_aggregate";
        if (partial && n.op != IaOp::Shuffle && !combines)
            return "its input #" + std::to_string(in) +
                   " holds partial results, which only a shuffle or the local_aggregate of the "
                   "same relation (combining them) may consume";
        if (!partial && same && n.op == IaOp::LocalAggregate)
            return "a local aggregate reads its TRA operand, or partial results of its own "
                   "relation; input #" + std::to_string(in) + " is neither";
    }
    if (n.op != IaOp::PartialAggregate) return std::nullopt;
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

// A replication map (IaNode::replicated, no logical operator): it copies its origin's own
// relation, once, by a valid spec; the copies stay on their source's sites.
PlacementInference replication_placement(const Plan& plan, const IaNode& n) {
    const IaNode& in = plan.node(n.inputs[0]);
    if (in.origin != n.origin)
        return invalid("a replication map copies its origin's relation, but its input #" +
                       std::to_string(in.id) + " holds '" + plan.origin(in.id).name + "'");
    if (in.replicated) return invalid("its input is already replicated");
    const Replication& spec = n.replicated->spec;
    if (auto why = spec.problem(plan.program().node(n.origin).type.key_arity))
        return invalid("bad replication " + spec.str() + ": " + *why);
    if (n.map_arity != spec.arity())
        return invalid("replication " + spec.str() + " makes " + std::to_string(spec.arity()) +
                       " copies per tuple, the map says arity " + std::to_string(n.map_arity));
    return valid(replicated_placement(in.placement, spec));
}

// A local join reading replicated relations must be exactly the RMM form of its TRA join.
PlacementInference replicated_join_placement(const Plan& plan, const IaNode& n,
                                             const JoinOp& applied) {
    const Node& origin = plan.program().node(n.origin);
    const auto* op = std::get_if<JoinOp>(&origin.op);
    if (!op) return invalid("a local join must compute a TRA join");
    const Program& program = plan.program();
    const IaNode &l = plan.node(n.inputs[0]), &r = plan.node(n.inputs[1]);
    if (auto why = rmm_join_problem(*op, program.node(origin.inputs.at(0)),
                                    program.node(origin.inputs.at(1)), l.replicated.get(),
                                    r.replicated.get(), applied))
        return invalid(*why);
    auto out = join_output_placement(l.placement, applied.left_keys, r.placement,
                                     applied.right_keys, plan.relation(l.id).type.key_arity);
    if (!out)
        return invalid("replicated inputs are not co-located: left " + l.placement.str() +
                       ", right " + r.placement.str() + " joined on every key position");
    return valid(*out);
}

}  // namespace

PlacementInference infer_output_placement(const Plan& plan, const IaNode& n) {
    if (n.inputs.size() != expected_inputs(n.op))
        return invalid("it has " + std::to_string(n.inputs.size()) + " inputs, " +
                       op_name(n.op) + " takes " + std::to_string(expected_inputs(n.op)));
    for (IaNodeId in : n.inputs)
        if (in >= n.id) return invalid("input #" + std::to_string(in) + " does not precede it");
    auto in_placement = [&](std::size_t i) -> const Placement& {
        return plan.node(n.inputs[i]).placement;
    };
    const bool replication = n.op == IaOp::Map && n.replicated;
    if (n.replicated && !replication && !is_enforcer(n.op))
        return invalid("only a map (replication) or an enforcer holds a replicated relation");
    if (!is_enforcer(n.op) && !n.logical && !replication)
        return invalid("it has no logical operator");
    if (auto why = partials_problem(plan, n)) return invalid(*why);
    for (IaNodeId in : n.inputs)
        if (plan.node(in).replicated && !is_enforcer(n.op) && n.op != IaOp::LocalJoin)
            return invalid("its input #" + std::to_string(in) +
                           " holds a replicated relation, which only enforcers and the "
                           "replicated (rmm) join read");
    if (replication) return replication_placement(plan, n);
    switch (n.op) {
        case IaOp::Input:
            if (n.placement.kind() == Placement::Kind::Unknown)
                return invalid("an input must start in a known placement");
            return valid(n.placement);
        case IaOp::Bcast: return valid(Placement::all());
        case IaOp::Shuffle: {
            std::size_t arity = plan.relation(n.inputs[0]).type.key_arity;
            for (std::size_t d : n.shuffle_dims)
                if (d >= arity)
                    return invalid("shuffle position " + std::to_string(d) +
                                   " is outside the key of arity " + std::to_string(arity));
            return valid(Placement::part(n.shuffle_dims));
        }
        case IaOp::LocalJoin: {
            const auto* join = std::get_if<JoinOp>(&*n.logical);
            if (!join) return invalid("a local join must apply a TRA join");
            if (plan.node(n.inputs[0]).replicated || plan.node(n.inputs[1]).replicated)
                return replicated_join_placement(plan, n, *join);
            const Placement &l = in_placement(0), &r = in_placement(1);
            auto out = join_output_placement(l, join->left_keys, r, join->right_keys,
                                             plan.origin(n.inputs[0]).type.key_arity);
            if (!out)
                return invalid("inputs are not co-located on the join keys: left " + l.str() +
                               ", right " + r.str() + " joined on " + positions(join->left_keys) +
                               " = " + positions(join->right_keys));
            return valid(*out);
        }
        case IaOp::LocalAggregate: {
            if (!std::holds_alternative<AggregateOp>(*n.logical) &&
                !std::holds_alternative<ConcatOp>(*n.logical))
                return invalid("a local aggregate must apply a TRA aggregate or concat");
            return aggregate_placement(in_placement(0), plan.aggregate_by(n));
        }
        case IaOp::PartialAggregate:
            // Where a group's partials are depends on which input keys exist, not on the
            // group's key values: no placement function describes it (ia/partials.hpp).
            return valid(Placement::unknown());
        case IaOp::LocalFilter:
            if (!std::holds_alternative<FilterOp>(*n.logical))
                return invalid("a local filter must apply a TRA filter");
            return valid(in_placement(0));  // a filter keeps each accepted tuple's site
        case IaOp::Map: return map_placement(in_placement(0), *n.logical);
        case IaOp::Grid: {
            // The target grid is a choice, not derivable from the input: it is stored on the node.
            auto why = grid_move_problem(n.placement, plan.relation(n.inputs[0]).type.key_arity);
            if (why) return invalid(*why);
            return valid(n.placement);
        }
    }
    return invalid("unknown IA operator");
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
        if (p.kind() == Placement::Kind::Grid && p.grid_rows() * p.grid_cols() > plan.sites())
            return problem("placement " + p.str() + " needs " +
                           std::to_string(p.grid_rows() * p.grid_cols()) + " sites, the plan has " +
                           std::to_string(plan.sites()));
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
