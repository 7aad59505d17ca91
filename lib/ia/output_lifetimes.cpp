#include "ia/output_lifetimes.hpp"

#include "ia/fused_joins.hpp"
#include "ia/last_uses.hpp"

namespace tra::ia {

std::vector<std::optional<Lifetime>> output_lifetimes(const Plan& plan,
                                                      const std::vector<IaNodeId>& kept) {
    const std::vector<IaNodeId> last_use = last_uses(plan);
    std::vector<std::optional<Lifetime>> out(plan.size());
    for (IaNodeId i = 0; i < plan.size(); ++i) out[i] = Lifetime{i, last_use[i]};
    const std::vector<std::optional<IaNodeId>> fused = fused_joins(plan);
    for (IaNodeId j = 0; j < plan.size(); ++j)
        if (fused[j]) {
            out[*fused[j]]->first = j;
            out[j].reset();
        }
    for (IaNodeId k : kept)
        if (k < out.size() && out[k]) out[k]->last = plan.size();
    return out;
}

}  // namespace tra::ia
