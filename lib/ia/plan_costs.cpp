#include "ia/plan_costs.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <variant>

#include "core/error.hpp"
#include "ia/loop_carry.hpp"
#include "ia/operator_spec.hpp"
#include "ia/partials.hpp"
#include "ia/peak_memory.hpp"
#include "ia/replication.hpp"
#include "ia/site_tracing.hpp"
#include "ia/transfer.hpp"

namespace tra::ia {

namespace {

std::vector<std::int64_t> resident_of(const SiteMap& map, std::size_t tile_bytes, int sites) {
    std::vector<std::int64_t> r(static_cast<std::size_t>(sites), 0);
    // Consecutive tuples sharing one list of sites (site_map.hpp) are added as one run.
    for (std::size_t i = 0; i < map.size();) {
        const std::span<const Site> held = map.entry(i).sites;
        std::size_t j = i + 1;
        while (j < map.size() && map.entry(j).sites.data() == held.data() &&
               map.entry(j).sites.size() == held.size())
            ++j;
        const auto bytes = static_cast<std::int64_t>(j - i) * static_cast<std::int64_t>(tile_bytes);
        for (Site site : held) r.at(static_cast<std::size_t>(site)) += bytes;
        i = j;
    }
    return r;
}

std::int64_t node_flops(const Plan& plan, const IaNode& n,
                        const std::vector<std::int64_t>& resident) {
    if (!operator_spec(n.op).joins || !n.logical) return 0;
    const auto* join = std::get_if<JoinOp>(&*n.logical);
    if (!join) return 0;
    const Shape operands[] = {plan.relation(n.inputs[0]).type.bound,
                              plan.relation(n.inputs[1]).type.bound};
    std::int64_t per_pair = join->kernel.flops(operands);
    // One kernel call per output tuple copy: every site where a matching pair meets computes it.
    std::int64_t copies = 0;
    auto tile_bytes = static_cast<std::int64_t>(plan.origin(n.id).type.tile_bytes());
    for (std::int64_t bytes : resident) copies += tile_bytes ? bytes / tile_bytes : 0;
    return per_pair * copies;
}

// Whether node n moves partials to their homes: a reduce, costed as one (ia/partials.hpp).
bool reduces_partials(const Plan& plan, const IaNode& n) {
    return operator_spec(n.op).moves_partials && plan.holds_partials(n.inputs.at(0));
}

// Which relation a node holds, for memo keys: its origin, and how it is replicated if it is.
std::string relation_id(const IaNode& n) {
    std::string id = std::to_string(n.origin);
    if (n.replicated) id += n.replicated->spec.str();
    return id;
}

// What a node's cost and holders depend on: its op, relation and placement, whether it moves
// partials, and where its inputs' tuples are (each traced SiteMap is one shared object, so its
// address identifies it). Two nodes with the same signature cost the same.
std::string cost_signature(const Plan& plan, const IaNode& n, const CostCache::Holders& sites) {
    std::string sig =
        std::to_string(static_cast<int>(n.op)) + " " + relation_id(n) + " " + n.placement.str();
    if (reduces_partials(plan, n)) sig += " partials";
    for (IaNodeId in : n.inputs)
        sig += " " + std::to_string(reinterpret_cast<std::uintptr_t>(sites.at(in).get()));
    return sig;
}

// Where node n's tuples are: traced for Unknown (site_tracing.hpp), else from its placement,
// memoized; or why they cannot be told.
Checked<std::shared_ptr<const SiteMap>> sites_of(const Plan& plan, const IaNode& n,
                                                 const CostCache::Holders& sites,
                                                 CostCache::Memo& memo) {
    if (n.placement.kind() == Placement::Kind::Unknown) {
        std::vector<const SiteMap*> inputs;
        for (IaNodeId in : n.inputs) inputs.push_back(sites.at(in).get());
        Checked<SiteMap> traced = trace_node_sites(plan, n, inputs);
        if (!traced) return traced.problem();
        return std::make_shared<const SiteMap>(std::move(traced).value());
    }
    auto& placed = memo.placed[relation_id(n) + " " + n.placement.str()];
    if (placed) return placed;
    const KeySet& keys = plan.relation(n.id).keys;
    if (memo.shared && keys.held_as_box())
        placed = memo.shared->box_holders(keys.box_frontier(), n.placement, plan.sites());
    else
        placed = std::make_shared<const SiteMap>(holders(keys, n.placement, plan.sites()));
    return placed;
}

// What enforcer n moves from where its input's tuples are (`held`): looked up in the shared
// costs when the input is a box placed by a placement (so `held` is holders(box, placement)).
Transfer moved(const Plan& plan, const IaNode& n, const SiteMap& held, CostCache::Memo& memo) {
    const Node& origin = plan.relation(n.id);
    const IaNode& input = plan.node(n.inputs.at(0));
    const KeySet& keys = plan.relation(input.id).keys;
    if (memo.shared && input.placement.kind() != Placement::Kind::Unknown && keys.held_as_box())
        return memo.shared->box_transfer(keys.box_frontier(), origin.type.key_arity,
                                         origin.type.tile_bytes(), input.placement, n.placement,
                                         plan.sites(), held);
    return exact_transfer(held, origin.type.key_arity, origin.type.tile_bytes(), n.placement,
                          plan.sites());
}

// The problem instead when where n's tuples are cannot be told.
Checked<CostCache::Memo::Entry> cost_node(const Plan& plan, const IaNode& n,
                                          const CostCache::Holders& sites, CostCache::Memo& memo) {
    const int S = plan.sites();
    const Node& origin = plan.relation(n.id);
    const std::size_t tile_bytes = origin.type.tile_bytes();
    NodeCost cost;
    cost.annotated = true;
    Checked<std::shared_ptr<const SiteMap>> located = sites_of(plan, n, sites, memo);
    if (!located) return located.problem();
    std::shared_ptr<const SiteMap> held = std::move(located).value();
    cost.resident = resident_of(*held, tile_bytes, S);
    if (reduces_partials(plan, n)) {
        // A reduce, not a move: every holder but the home sends its own partial
        // (ia/partials.hpp). Paper model: the partial relation's floats, one count per
        // partial; the paper itself charges the aggregated relation (paper_floats_aggregated).
        const SiteMap& partials = *sites.at(n.inputs.at(0));
        cost.transfer = exact_reduce(partials, origin.type.key_arity, tile_bytes, n.placement, S);
        cost.resident = reduced_resident(partials, tile_bytes, n.placement, S);
        const std::int64_t elements = origin.type.bound.product();
        cost.paper_floats = paper_shuffle_cost(paper_floats(partial_count(partials), elements));
        cost.paper_floats_aggregated =
            paper_shuffle_cost(paper_floats(static_cast<std::int64_t>(origin.tuples()), elements));
    } else if (is_enforcer(n.op)) {
        cost.transfer = moved(plan, n, *sites.at(n.inputs.at(0)), memo);
        double f =
            paper_floats(static_cast<std::int64_t>(origin.tuples()), origin.type.bound.product());
        cost.paper_floats = operator_spec(n.op).paper_cost(f, S, n.placement);
        cost.paper_floats_aggregated = cost.paper_floats;
    }
    cost.flops = node_flops(plan, n, cost.resident);
    cost.sites = held;
    return CostCache::Memo::Entry{std::move(cost), std::move(held)};
}

// Costs the nodes `cache` has not seen and returns the sum of their transfer, paper floats and
// flops, or the problem of the first node whose tuples cannot be located.
Checked<PlanTotals> cost_new_nodes(Plan& plan, CostCache& cache) {
    PlanTotals totals;
    for (IaNodeId id = cache.holders.size(); id < plan.size(); ++id) {
        const IaNode& n = plan.node(id);
        std::string sig = cost_signature(plan, n, cache.holders);
        auto found = cache.memo->entries.find(sig);
        if (found == cache.memo->entries.end()) {
            Checked<CostCache::Memo::Entry> entry = cost_node(plan, n, cache.holders, *cache.memo);
            if (!entry) return entry.problem();
            found = cache.memo->entries.emplace(std::move(sig), std::move(entry).value()).first;
        }
        const auto& [cost, held] = found->second;
        cache.holders.push_back(held);
        totals.payload_bytes += cost.transfer.payload_bytes;
        totals.overhead_bytes += cost.transfer.overhead_bytes;
        totals.paper_floats += cost.paper_floats;
        totals.paper_floats_aggregated += cost.paper_floats_aggregated;
        totals.flops += cost.flops;
        plan.mutable_node(id).cost = cost;
    }
    return totals;
}

// The totals over every node (costed) and the peak.
PlanTotals whole_plan_totals(const Plan& plan) {
    PlanTotals totals;
    for (const IaNode& n : plan.nodes()) {
        totals.payload_bytes += n.cost.transfer.payload_bytes;
        totals.overhead_bytes += n.cost.transfer.overhead_bytes;
        totals.paper_floats += n.cost.paper_floats;
        totals.paper_floats_aggregated += n.cost.paper_floats_aggregated;
        totals.flops += n.cost.flops;
    }
    // A loop's carry moves between iterations: part of every iteration but the last, counted
    // with the iteration it ends (ia/loop_carry.hpp).
    for (const CarryMove& m : carry_moves(plan)) {
        totals.payload_bytes += m.transfer.payload_bytes;
        totals.overhead_bytes += m.transfer.overhead_bytes;
    }

    // Resident outputs plus exchange buffers, per site (ia/peak_memory.hpp).
    totals.peak_per_site = peak_per_site(plan);
    for (std::int64_t p : totals.peak_per_site) totals.peak_bytes = std::max(totals.peak_bytes, p);
    return totals;
}

}  // namespace

PlanTotals annotate_new_costs(Plan& plan, CostCache& cache) {
    return cost_new_nodes(plan, cache).value();
}

PlanTotals annotate_costs(Plan& plan) {
    CostCache cache;
    return annotate_costs(plan, cache);
}

PlanTotals annotate_costs(Plan& plan, CostCache& cache) {
    annotate_new_costs(plan, cache);
    return whole_plan_totals(plan);
}

Checked<PlanTotals> try_annotate_costs(Plan& plan) {
    CostCache cache;
    Checked<PlanTotals> added = cost_new_nodes(plan, cache);
    if (!added) return added.problem();
    return whole_plan_totals(plan);
}

}  // namespace tra::ia
