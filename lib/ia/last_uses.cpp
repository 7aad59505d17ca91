#include "ia/last_uses.hpp"

#include <algorithm>

namespace tra::ia {

std::vector<IaNodeId> last_uses(const Plan& plan) {
    std::vector<IaNodeId> last(plan.size(), 0);
    for (const IaNode& n : plan.nodes()) {
        last[n.id] = std::max(last[n.id], n.id);
        for (IaNodeId in : n.inputs) last[in] = std::max(last[in], n.id);
    }
    for (const Output& o : plan.program().outputs)
        if (auto r = plan.result(o.node)) last[*r] = plan.size();
    return last;
}

}  // namespace tra::ia
