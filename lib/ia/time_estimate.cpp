#include "ia/time_estimate.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>

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

}  // namespace

double estimated_seconds(const Plan& plan, const MachineRates& rates) {
    double seconds = 0;
    for (const IaNode& n : plan.nodes())
        seconds += busiest_site_flops(n.cost) / rates.flops_per_second +
                   busiest_site_received(n.cost.transfer) / rates.bytes_per_second;
    return seconds;
}

}  // namespace tra::ia
