#include "runtime/local_step.hpp"

#include <string>
#include <utility>
#include <variant>

#include "core/error.hpp"
#include "runtime/join_aggregate.hpp"
#include "runtime/local_ops.hpp"
#include "runtime/replication_map.hpp"

namespace tra::runtime {

using ia::IaNode;
using ia::IaOp;
using ia::Site;

void compute_locally(const ia::Plan& plan, const IaNode& n, std::vector<HeldTuples>& held, Site me,
                     const std::vector<std::optional<ia::IaNodeId>>& fused, HeldTuples& out) {
    const Node& origin = plan.origin(n.id);
    const bool partial_input = plan.holds_partials(n.inputs.at(0));
    if (n.replicated) {
        out.tuples = replicate_tuples(n.replicated->spec, held.at(n.inputs.at(0)).tuples);
    } else if (n.op == IaOp::LocalJoin && fused[n.id]) {
        const IaNode& c = plan.node(*fused[n.id]);
        out.tuples = join_aggregate_tuples(
            origin, std::get<JoinOp>(plan.logical(n.id)), plan.origin(c.id),
            std::get<AggregateOp>(plan.logical(c.id)), held.at(n.inputs.at(0)).tuples,
            held.at(n.inputs.at(1)).tuples, plan.relation(n.inputs.at(1)).type.key_arity);
    } else if (fused[n.inputs.at(0)]) {
        // The join before computed this aggregate's tuples: take them over.
        HeldTuples& in = held[n.inputs[0]];
        if (n.op == IaOp::PartialAggregate) {
            for (auto& [g, t] : in.tuples) out.partials[g].emplace(me, std::move(t));
        } else {
            out.tuples = std::move(in.tuples);
        }
        in.clear();
    } else if (n.op == IaOp::LocalJoin) {
        const auto& join = std::get<JoinOp>(plan.logical(n.id));
        out.tuples = join_tuples(origin, join, held.at(n.inputs.at(0)).tuples,
                                 held.at(n.inputs.at(1)).tuples,
                                 plan.relation(n.inputs.at(1)).type.key_arity);
    } else if (n.op == IaOp::LocalAggregate && partial_input) {
        // Combine: fold each group's partials in ascending order of the site computing them.
        const auto& agg = std::get<AggregateOp>(plan.logical(n.id));
        for (const auto& [g, by] : held.at(n.inputs[0]).partials) {
            auto it = by.begin();
            Tile acc = it->second;
            for (++it; it != by.end(); ++it) {
                const Tile* args[] = {&acc, &it->second};
                acc = agg.kernel.apply(args, {g, origin.frontier});
            }
            out.tuples.emplace(g, std::move(acc));
        }
    } else if (n.op == IaOp::LocalAggregate || n.op == IaOp::PartialAggregate) {
        const Operator& op = plan.logical(n.id);
        const Tuples& in = held.at(n.inputs.at(0)).tuples;
        Tuples result;
        if (const auto* agg = std::get_if<AggregateOp>(&op))
            result = aggregate_tuples(origin, *agg, in);
        else if (const auto* concat = std::get_if<ConcatOp>(&op))
            result = concat_tuples(*concat, in);
        else
            throw Error(
                "IA node #" + std::to_string(n.id) + " aggregates with a non-aggregate operator",
                {}, ErrorKind::Failed);
        if (n.op == IaOp::PartialAggregate) {
            for (auto& [g, t] : result) out.partials[g].emplace(me, std::move(t));
        } else {
            out.tuples = std::move(result);
        }
    } else {  // local_filter, map
        const Node& input = plan.origin(n.inputs.at(0));
        out.tuples = map_tuples(origin, plan.logical(n.id), held.at(n.inputs.at(0)).tuples,
                                input.keys.frontier(input.type.key_arity));
    }
}

}  // namespace tra::runtime
