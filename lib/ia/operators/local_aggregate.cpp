// local_aggregate: a TRA aggregate (or concat) run per site, valid when no group spans sites.
// Over partials of its own relation (R2-5, after their shuffle) it combines them instead: its
// groups are then whole keys, folding the partials by source site ascending.
#include <algorithm>
#include <string>
#include <variant>

#include "ia/operator_spec.hpp"

namespace tra::ia {

namespace {

bool computes_aggregate(const Operator& op) {
    return std::holds_alternative<AggregateOp>(op) || std::holds_alternative<ConcatOp>(op);
}

// Index of `pos` within `by`, or nullopt.
std::optional<std::size_t> index_in(const KeyPositions& by, std::size_t pos) {
    auto it = std::find(by.begin(), by.end(), pos);
    if (it == by.end()) return std::nullopt;
    return static_cast<std::size_t>(it - by.begin());
}

PlacementInference aggregate_placement(const Placement& in, const KeyPositions& by) {
    using Inference = PlacementInference;
    switch (in.kind()) {
        case Placement::Kind::All:
            return Inference::valid(Placement::all());
        case Placement::Kind::Unknown:
            return Inference::invalid(
                "its input's placement is Unknown, so a group may span sites");
        case Placement::Kind::Part: {
            // Tuples of one group agree on `by`, hence on d when d is a subset of by: one site.
            KeyPositions out;
            for (std::size_t d : in.dims()) {
                auto i = index_in(by, d);
                if (!i)
                    return Inference::invalid("its input is " + in.str() + " but key position " +
                                              std::to_string(d) + " is not grouped on (by " +
                                              positions_text(by) + "), so a group may span sites");
                out.push_back(*i);
            }
            return Inference::valid(Placement::part(out));
        }
        case Placement::Kind::Grid: {
            // Every grid axis (row, column, layer) read from a group-by position.
            KeyPositions out;
            for (std::size_t d : in.dims())
                if (auto i = index_in(by, d)) out.push_back(*i);
            if (in.replicated() || out.size() != in.dims().size())
                return Inference::invalid("its input is " + in.str() +
                                          ", which does not keep each group (by " +
                                          positions_text(by) + ") on one site");
            return Inference::valid(in.on_positions(out));
        }
    }
    return Inference::invalid("unknown placement kind");
}

std::optional<KeyPositions> aggregate_group_by(const Plan& plan, const IaNode& n) {
    if (!n.logical) return std::nullopt;
    if (n.inputs.size() == 1 && n.inputs[0] < plan.size() && plan.holds_partials(n.inputs[0])) {
        // Combining partials: they already carry the aggregate's output key, so the groups are
        // whole keys.
        KeyPositions all(plan.origin(n.inputs[0]).type.key_arity);
        for (std::size_t p = 0; p < all.size(); ++p) all[p] = p;
        return all;
    }
    if (const auto* agg = std::get_if<AggregateOp>(&*n.logical)) return agg->by;
    if (const auto* cat = std::get_if<ConcatOp>(&*n.logical)) {
        // CONCAT groups on <key_dim>^c, in key order (Table 1).
        KeyPositions by;
        std::size_t arity = n.inputs.empty() ? 0 : plan.origin(n.inputs[0]).type.key_arity;
        for (std::size_t p = 0; p < arity; ++p)
            if (p != cat->key_dim) by.push_back(p);
        return by;
    }
    return std::nullopt;
}

PlacementInference placement_of_aggregate(const Plan& plan, const IaNode& n) {
    if (!std::holds_alternative<AggregateOp>(*n.logical) &&
        !std::holds_alternative<ConcatOp>(*n.logical))
        return PlacementInference::invalid(
            "a local aggregate must apply a TRA aggregate or concat");
    return aggregate_placement(plan.node(n.inputs[0]).placement, plan.aggregate_by(n));
}

}  // namespace

OperatorSpec local_aggregate_operator() {
    OperatorSpec spec;
    spec.name = "local_aggregate";
    spec.computes = computes_aggregate;
    spec.combines_partials = true;
    spec.group_by = aggregate_group_by;
    spec.placement = placement_of_aggregate;
    return spec;
}

}  // namespace tra::ia
