#include "ia/time_estimate.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <vector>

#include "ia/fused_joins.hpp"
#include "ia/operator_spec.hpp"

namespace tra::ia {

namespace {

// The largest share of the node's flops one site computes.
double busiest_site_flops(const NodeCost& cost) {
    if (cost.flops == 0 || cost.resident.empty()) return 0;
    const std::int64_t copies =
        std::accumulate(cost.resident.begin(), cost.resident.end(), std::int64_t{0});
    if (copies == 0) return 0;
    const std::int64_t busiest = *std::max_element(cost.resident.begin(), cost.resident.end());
    return static_cast<double>(cost.flops) * static_cast<double>(busiest) /
           static_cast<double>(copies);
}

double busiest_site_received(const Transfer& t) {
    std::int64_t most = 0;
    for (std::size_t s = 0; s < t.received_payload.size(); ++s) {
        const std::int64_t overhead =
            s < t.received_overhead.size() ? t.received_overhead[s] : std::int64_t{0};
        most = std::max(most, t.received_payload[s] + overhead);
    }
    return static_cast<double>(most);
}

double busiest_site(const std::vector<std::int64_t>& per_site) {
    return per_site.empty()
               ? 0.0
               : static_cast<double>(*std::max_element(per_site.begin(), per_site.end()));
}

// The busiest site's bytes of the memory pass of node n (the header's `passed`).
double busiest_site_passed(const Plan& plan, const IaNode& n,
                           const std::vector<std::optional<IaNodeId>>& fused) {
    const OperatorSpec& spec = operator_spec(n.op);
    const bool aggregate = spec.group_by != nullptr;
    if (spec.joins) return fused[n.id] ? 0.0 : busiest_site(n.cost.resident);
    if (!aggregate || n.inputs.size() != 1 || fused[n.inputs[0]]) return 0.0;
    std::vector<std::int64_t> passed = n.cost.resident;
    const std::vector<std::int64_t>& read = plan.node(n.inputs[0]).cost.resident;
    passed.resize(std::max(passed.size(), read.size()), 0);
    for (std::size_t s = 0; s < read.size(); ++s) passed[s] += read[s];
    return busiest_site(passed);
}

}  // namespace

double estimated_seconds(const Plan& plan, const MachineRates& rates) {
    const std::vector<std::optional<IaNodeId>> fused = fused_joins(plan);
    double seconds = 0;
    for (const IaNode& n : plan.nodes())
        seconds += busiest_site_flops(n.cost) / rates.flops_per_second +
                   busiest_site_received(n.cost.transfer) / rates.bytes_per_second +
                   busiest_site_passed(plan, n, fused) / rates.memory_bytes_per_second;
    return seconds;
}

}  // namespace tra::ia
