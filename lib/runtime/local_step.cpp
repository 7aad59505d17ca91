#include "runtime/local_step.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <variant>

#include "core/error.hpp"
#include "ia/operator_spec.hpp"
#include "runtime/join_aggregate.hpp"
#include "runtime/local_ops.hpp"
#include "runtime/replication_map.hpp"

namespace tra::runtime {

using ia::IaNode;
using ia::IaOp;
using ia::Site;

namespace {

// What one local operator reads on this rank.
struct LocalStep {
    const ia::Plan& plan;
    const IaNode& n;
    std::vector<HeldTuples>& held;
    Site me;
    const std::vector<std::optional<ia::IaNodeId>>& fused;
    bool input_spent;  // nothing reads input 0 after this operator: its tiles may be taken

    const Node& origin() const { return plan.origin(n.id); }
    const Tuples& input(std::size_t i) const { return held.at(n.inputs.at(i)).tuples; }
    Tuples& spent_input() const { return held.at(n.inputs.at(0)).tuples; }
};

// Per-site results of an operator that makes partials: one per (group, this site).
void keep_as_partials(Tuples&& result, Site me, HeldTuples& out) {
    for (auto& [g, t] : result) out.partials[g].emplace(me, std::move(t));
}

void run_join(const LocalStep& s, HeldTuples& out) {
    const auto& join = std::get<JoinOp>(s.plan.logical(s.n.id));
    const std::size_t right_arity = s.plan.relation(s.n.inputs.at(1)).type.key_arity;
    if (const auto consumer = s.fused[s.n.id]) {
        // Fused with the aggregate reading it: compute the aggregate's tuples directly.
        const IaNode& c = s.plan.node(*consumer);
        out.tuples = join_aggregate_tuples(s.origin(), join, s.plan.origin(c.id),
                                           std::get<AggregateOp>(s.plan.logical(c.id)), s.input(0),
                                           s.input(1), right_arity);
        return;
    }
    out.tuples = join_tuples(s.origin(), join, s.input(0), s.input(1), right_arity);
}

Tuples aggregated(const LocalStep& s) {
    const Operator& op = s.plan.logical(s.n.id);
    if (const auto* agg = std::get_if<AggregateOp>(&op))
        return s.input_spent ? aggregate_tuples(s.origin(), *agg, std::move(s.spent_input()))
                             : aggregate_tuples(s.origin(), *agg, s.input(0));
    if (const auto* concat = std::get_if<ConcatOp>(&op)) return concat_tuples(*concat, s.input(0));
    throw Error("IA node #" + std::to_string(s.n.id) + " aggregates with a non-aggregate operator",
                {}, ErrorKind::Failed);
}

void run_aggregate(const LocalStep& s, HeldTuples& out) {
    if (!s.plan.holds_partials(s.n.inputs.at(0))) {
        out.tuples = aggregated(s);
        return;
    }
    // Combine: fold each group's partials in ascending order of the site computing them. The
    // first partial is read in place; a group of one passes it on (moved at its last use).
    const auto& agg = std::get<AggregateOp>(s.plan.logical(s.n.id));
    for (auto& [g, by] : s.held.at(s.n.inputs[0]).partials) {
        auto it = by.begin();
        Tile& first = it->second;
        const Tile* so_far = &first;
        Tile acc;
        for (++it; it != by.end(); ++it) {
            const Tile* args[] = {so_far, &it->second};
            acc = agg.kernel.apply(args, {g, s.origin().frontier});
            so_far = &acc;
        }
        if (so_far == &acc)
            out.tuples.emplace(g, std::move(acc));
        else
            out.tuples.emplace(g, s.input_spent ? std::move(first) : Tile(first));
    }
}

void run_partial_aggregate(const LocalStep& s, HeldTuples& out) {
    keep_as_partials(aggregated(s), s.me, out);
}

void run_tuple_wise(const LocalStep& s, HeldTuples& out) {  // local_filter, map
    if (std::holds_alternative<FillOp>(s.plan.logical(s.n.id))) {
        // This rank's tiles of zeros are where site tracing put them.
        const ia::Placement& from = s.plan.node(s.n.inputs.at(0)).placement;
        const Tuples& in = s.input(0);
        const Residence where = in.empty() ? Residence::Host : in.begin()->second.residence();
        const auto mine = [&](const Key& k) {
            const auto sites = ia::fill_sites(from, k, s.plan.sites());
            return std::find(sites.begin(), sites.end(), s.me) != sites.end();
        };
        out.tuples = s.input_spent
                         ? fill_tuples(s.origin(), std::move(s.spent_input()), mine, where)
                         : fill_tuples(s.origin(), in, mine, where);
        return;
    }
    const Operator& op = s.plan.logical(s.n.id);
    const Frontier& frontier = s.plan.origin(s.n.inputs.at(0)).frontier;
    out.tuples = s.input_spent ? map_tuples(s.origin(), op, std::move(s.spent_input()), frontier)
                               : map_tuples(s.origin(), op, s.input(0), frontier);
}

// The execution half of each local IA operator's spec (ia/operator_spec.hpp): lib/ia cannot
// depend on lib/runtime, so the hooks are here, keyed by operator; a new local operator adds
// its line. Input nodes are read and enforcers exchanged by the executor (runtime/execution.cpp).
using LocalRun = void (*)(const LocalStep&, HeldTuples&);
LocalRun local_run(IaOp op) {
    switch (op) {
        case IaOp::LocalJoin:
            return run_join;
        case IaOp::LocalAggregate:
            return run_aggregate;
        case IaOp::PartialAggregate:
            return run_partial_aggregate;
        case IaOp::LocalFilter:
        case IaOp::Map:
            return run_tuple_wise;
        default:
            return nullptr;
    }
}

}  // namespace

void compute_locally(const ia::Plan& plan, const IaNode& n, std::vector<HeldTuples>& held, Site me,
                     const std::vector<std::optional<ia::IaNodeId>>& fused, HeldTuples& out,
                     bool input_spent) {
    if (n.replicated) {  // a replication map (RMM's A*)
        out.tuples = replicate_tuples(n.replicated->spec, held.at(n.inputs.at(0)).tuples);
    } else if (fused[n.inputs.at(0)]) {
        // The join before computed this aggregate's tuples: take them over.
        HeldTuples& in = held[n.inputs[0]];
        if (ia::operator_spec(n.op).makes_partials)
            keep_as_partials(std::move(in.tuples), me, out);
        else
            out.tuples = std::move(in.tuples);
        in.clear();
    } else if (const LocalRun run = local_run(n.op)) {
        run(LocalStep{plan, n, held, me, fused, input_spent && n.inputs.size() == 1}, out);
    } else {
        throw Error("IA operator " + ia::op_name(n.op) + " has no local execution", {},
                    ErrorKind::Failed);
    }
}

}  // namespace tra::runtime
