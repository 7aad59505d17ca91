#pragma once
// Per-node and whole-plan costs of an IA plan (docs/cost-model.md, "Plan costs"):
//
//   transfer   exact bytes an enforcer moves: exact_transfer from where its input's tuples are
//              to its output placement, over the origin's key set and tile bytes
//   paper      the TRA paper's 5.3 model in floats: bcast f*S, shuffle f, f = tuples * tile
//              elements (our key sets are exact, so tuples replaces the frontier product)
//              a shuffle of partials (R2-5) has f = partials * tile elements (one count per
//              partial; the paper charges the aggregated size: paper_floats_aggregated)
//   reduce     a shuffle of partials costs exact_reduce (ia/partials.hpp), not exact_transfer
//   resident   each site's tile bytes of every node's output (resident_bytes)
//   peak       per site, the largest sum of resident bytes of outputs alive at once, in plan
//              order, plus the exchange buffers of the node running (ia/peak_memory.hpp)
//   flops      local joins with a matrix-product kernel: 2*m*n*k per tile pair, per site that
//              computes the pair (replicated work counts per copy); everything else 0
//
// Where tuples are after a rekey (Unknown placement) is traced exactly (ia/site_tracing.hpp, the
// same tracing the executor runs): a map keeps each tuple's site, so the output's SiteMap is the
// input's with the key function applied. This lets a bcast or shuffle after a rekey be costed
// exactly instead of refused.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/checked.hpp"
#include "core/index_vector.hpp"
#include "ia/persistent_vector.hpp"
#include "ia/plan.hpp"
#include "ia/shared_costs.hpp"
#include "kernels/kernel.hpp"

namespace tra::ia {

struct PlanTotals {
    std::int64_t payload_bytes = 0;   // sum of enforcers' exact payload
    std::int64_t overhead_bytes = 0;  // sum of enforcers' keys and count headers
    double paper_floats = 0;          // sum of the paper model over enforcers
    // The same, with each shuffle of partials (pre-aggregation) charged the aggregated
    // relation's floats as the paper does, instead of one count per partial: what the paper's
    // Table 9 (TRA-DP) needs. Equal to paper_floats for plans without pre-aggregation.
    double paper_floats_aggregated = 0;
    std::int64_t flops = 0;
    std::vector<std::int64_t> peak_per_site;  // the peak model above, per site
    std::int64_t peak_bytes = 0;              // max over sites

    std::int64_t total_bytes() const { return payload_bytes + overhead_bytes; }
};

// Fills every node's NodeCost and returns the totals. Throws Error (Failed) when where a
// node's tuples live cannot be determined (an Unknown placement not produced by a map chain);
// validate() first to get BadInput reasons for invalid plans.
PlanTotals annotate_costs(Plan& plan);

// The same as a value, for callers that only probe whether a plan can be costed (a rewrite
// rule's result): the totals, or why some node's tuples cannot be located.
Checked<PlanTotals> try_annotate_costs(Plan& plan);

// What incremental costing remembers: where the tuples of every costed node are, shared so
// that copies of a partial plan (the search's beam) share them instead of copying maps.
struct CostCache {
    using Holders = PersistentVector<std::shared_ptr<const SiteMap>>;
    Holders holders;  // one per node already costed, in plan order

    // Every node costed through any copy of this cache, by what its cost depends on (op,
    // relation, placement, its inputs' holders): partial plans that share a prefix, or place a
    // relation the same way, cost a node once. Copies share it.
    struct Memo {
        struct Entry {
            NodeCost cost;
            std::shared_ptr<const SiteMap> holders;
        };
        std::map<std::string, Entry> entries;
        // holders(keys of origin, placement), by "origin placement": the same relation placed
        // the same way behind different inputs.
        std::map<std::string, std::shared_ptr<const SiteMap>> placed;
        // Transfers shared with the plans of other tilings (ia/shared_costs.hpp), if any.
        std::shared_ptr<SharedCosts> shared;
    };
    std::shared_ptr<Memo> memo = std::make_shared<Memo>();
};

// The same, costing only the nodes `cache` has not seen (a partial plan costed incrementally
// while it was built); the totals and the peak are over the whole plan.
PlanTotals annotate_costs(Plan& plan, CostCache& cache);

// Costs only the nodes added since `cache` was last used (nodes before them keep their
// NodeCost) and returns the sum of the new nodes' transfer, paper floats and flops; the peak is
// not computed (it needs the whole plan: annotate_costs).
PlanTotals annotate_new_costs(Plan& plan, CostCache& cache);

}  // namespace tra::ia
