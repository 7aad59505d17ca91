#include "ia/site_tracing.hpp"

#include <algorithm>
#include <variant>

#include "ia/operator_spec.hpp"
#include "ia/partials.hpp"
#include "ia/replication.hpp"
#include "ia/transfer.hpp"

namespace tra::ia {

namespace {

// A tuple-wise operator (map, filter) over one input: each output tuple is where its source is.
SiteMap tuple_wise_sites(const Plan& plan, const IaNode& n, const SiteMap& in) {
    const KeySet& out_keys = plan.relation(n.id).keys;
    if (n.replicated) return replicated_sites(in, out_keys, n.replicated->spec);
    const Operator& op = plan.logical(n.id);
    if (const auto* rekey = std::get_if<RekeyOp>(&op)) {
        std::vector<std::pair<Key, Site>> pairs;  // a new key may gather several old ones
        for (const auto& [k, s] : in)
            for (Site site : s) pairs.emplace_back(rekey->key.apply(k), site);
        return SiteMap::from_pairs(std::move(pairs));
    }
    SiteMap out;
    if (std::holds_alternative<TileOp>(op)) {
        // The pieces of a tuple stay with it: drop the appended key position to find it.
        for (const Key& k : out_keys)
            out.append(k, in.at(Key(std::vector<std::int64_t>(k.begin(), k.end() - 1))));
    } else if (std::holds_alternative<FillOp>(op)) {
        // Tiles of zeros where the fill makes them; the input's tuples stay.
        const Placement& from = plan.node(n.inputs.at(0)).placement;
        for (const Key& k : out_keys) {
            const auto held = in.find(k);
            if (held != in.end())
                out.append(k, (*held).sites);
            else
                out.append(k, fill_sites(from, k, plan.sites()));
        }
    } else {  // filter, transform: same keys (a filter keeps a subset)
        if (out_keys.size() == in.size()) return in;  // every key kept
        for (const Key& k : out_keys) out.append(k, in.at(k));
    }
    return out;
}

}  // namespace

Checked<SiteMap> trace_node_sites(const Plan& plan, const IaNode& n,
                                  const std::vector<const SiteMap*>& inputs) {
    if (n.placement.kind() != Placement::Kind::Unknown)
        return holders(plan.relation(n.id).keys, n.placement, plan.sites());
    const OperatorSpec& spec = operator_spec(n.op);
    if (spec.makes_partials && inputs.size() == 1)
        return partial_holders(*inputs[0], plan.aggregate_by(n));
    if (spec.tuple_wise && inputs.size() == 1) return tuple_wise_sites(plan, n, *inputs[0]);
    return Error("cannot tell where the tuples of IA node #" + std::to_string(n.id) + " ('" +
                     plan.origin(n.id).name + "') are: its placement is Unknown",
                 {}, ErrorKind::Failed);
}

Checked<std::vector<SiteMap>> trace_plan_sites(const Plan& plan) {
    std::vector<SiteMap> sites(plan.size());
    for (const IaNode& n : plan.nodes()) {
        std::vector<const SiteMap*> inputs;
        for (IaNodeId in : n.inputs) inputs.push_back(&sites.at(in));
        Checked<SiteMap> traced = trace_node_sites(plan, n, inputs);
        if (!traced) return traced.problem();
        sites[n.id] = std::move(traced).value();
    }
    return sites;
}

}  // namespace tra::ia
