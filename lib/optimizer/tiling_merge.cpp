#include "optimizer/tiling_merge.hpp"

#include <algorithm>
#include <tuple>

#include "optimizer/plan_order.hpp"
#include "optimizer/tiling_search.hpp"

namespace tra::optimizer {

std::string tiled_plan_name(const Program& program, const std::string& strategies) {
    const std::string tiling = tiling_name(program);
    return strategies.empty() ? tiling : tiling + "," + strategies;
}

RankedPlans merge_tiling_plans(const std::vector<RankedPlans*>& tilings, CostModel cost,
                               std::size_t top) {
    struct Entry {
        RankedPlan plan;
        std::size_t source;
    };
    std::vector<Entry> entries;
    std::vector<DroppedPlan> dropped;
    for (std::size_t i = 0; i < tilings.size(); ++i) {
        for (RankedPlan& p : tilings[i]->plans) {
            p.name = tiled_plan_name(*tilings[i]->program, p.name);
            entries.push_back({std::move(p), i});
        }
        for (DroppedPlan& d : tilings[i]->dropped) {
            d.name = tiled_plan_name(*tilings[i]->program, d.name);
            dropped.push_back(std::move(d));
        }
    }
    std::stable_sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
        return cheaper(cost, a.plan.totals, a.plan.seconds, a.plan.name, b.plan.totals,
                       b.plan.seconds, b.plan.name);
    });
    std::stable_sort(dropped.begin(), dropped.end(),
                     [](const DroppedPlan& a, const DroppedPlan& b) {
                         return std::tie(a.peak_bytes, a.name) < std::tie(b.peak_bytes, b.name);
                     });
    if (entries.size() > top)
        entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(top), entries.end());

    RankedPlans out;
    const std::size_t lead = entries.empty() ? 0 : entries.front().source;
    out.sites = tilings[lead]->sites;
    out.profile = tilings[lead]->profile;
    out.rewrites = tilings[lead]->rewrites;
    out.program = std::move(tilings[lead]->program);
    std::vector<bool> kept(tilings.size(), false);
    kept[lead] = true;
    for (Entry& e : entries) {
        if (!kept[e.source]) {
            kept[e.source] = true;
            out.other_programs.push_back(std::move(tilings[e.source]->program));
        }
        out.seconds.push_back(e.plan.seconds);
        out.plans.push_back(std::move(e.plan));
    }
    out.dropped = std::move(dropped);
    return out;
}

}  // namespace tra::optimizer
