#include "ia/last_uses.hpp"

#include <algorithm>
#include <variant>

namespace tra::ia {

bool read_once(const Plan& plan, const IaNode& n) {
    const auto& repeat = plan.program().repeat;
    if (!repeat || n.op != IaOp::Input || repeat->carried(n.origin)) return false;
    return !std::get<InputOp>(plan.origin(n.id).op).source.slice;
}

std::vector<IaNodeId> last_uses(const Plan& plan) {
    std::vector<IaNodeId> last(plan.size(), 0);
    for (const IaNode& n : plan.nodes()) {
        last[n.id] = std::max(last[n.id], n.id);
        for (IaNodeId in : n.inputs) last[in] = std::max(last[in], n.id);
    }
    for (const Output& o : plan.program().outputs)
        if (auto r = plan.result(o.node)) last[*r] = plan.size();
    // A loop keeps, to the end of every iteration, the inputs it reads once (read by every
    // iteration) and the carried steps' results (the next iteration's inputs).
    if (const auto& repeat = plan.program().repeat) {
        for (const IaNode& n : plan.nodes())
            if (read_once(plan, n)) last[n.id] = plan.size();
        for (const Carry& c : repeat->carry)
            if (auto r = plan.result(c.step)) last[*r] = plan.size();
    }
    return last;
}

}  // namespace tra::ia
