#include "ia/peak_memory.hpp"

#include <algorithm>

#include "ia/kernel_scratch.hpp"
#include "ia/loop_carry.hpp"
#include "ia/output_lifetimes.hpp"

namespace tra::ia {

namespace {

// What site s holds in exchange buffers for t: what it sends and what it receives.
std::int64_t buffer_bytes(const Transfer& t, std::size_t s) {
    return figure_at(t.sent_payload, s) + figure_at(t.sent_overhead, s) +
           figure_at(t.received_payload, s) + figure_at(t.received_overhead, s);
}

}  // namespace

std::vector<std::int64_t> exchange_buffers(const Transfer& t, int sites) {
    std::vector<std::int64_t> out(static_cast<std::size_t>(sites), 0);
    for (std::size_t s = 0; s < out.size(); ++s) out[s] = buffer_bytes(t, s);
    return out;
}

std::vector<std::int64_t> peak_per_site(const Plan& plan, const std::vector<IaNodeId>& kept,
                                        const std::vector<std::int64_t>& at_end,
                                        const PlanScratch* scratch) {
    const auto S = static_cast<std::size_t>(plan.sites());
    const std::vector<std::optional<Lifetime>> lifetimes = output_lifetimes(plan, kept);

    // Step t runs node t, with its exchange buffers; step plan.size() is after the last node,
    // with `at_end` (what a verifying run allocates then) or, between two iterations of a loop,
    // the carry's buffers and new tiles (never both: a run verifies after its last iteration).
    std::vector<std::int64_t> after = at_end;
    after.resize(S, 0);
    const std::vector<std::int64_t> carry = carry_scratch(plan, carry_moves(plan));
    for (std::size_t s = 0; s < S; ++s) after[s] = std::max(after[s], carry[s]);
    // What is resident at step t: tiles allocated at or before t and alive through t. Kept as a
    // running sum (each output added at its first step, removed after its last), not re-added
    // per step: planning at 1024 sites asks this of every plan it ranks.
    std::vector<std::vector<IaNodeId>> starting(plan.size() + 1), ending(plan.size() + 1);
    for (IaNodeId i = 0; i < plan.size(); ++i)
        if (const auto& l = lifetimes[i]; l && l->first <= l->last) {
            starting[l->first].push_back(i);
            ending[std::min<IaNodeId>(l->last, plan.size())].push_back(i);
        }
    std::vector<std::int64_t> resident(S, 0), peak(S, 0);
    HeldScratch held(plan, scratch);
    const auto add = [&](IaNodeId i, std::int64_t sign) {
        const std::vector<std::int64_t>& r = plan.node(i).cost.resident;
        for (std::size_t s = 0; s < S && s < r.size(); ++s) resident[s] += sign * r[s];
    };
    for (IaNodeId t = 0; t <= plan.size(); ++t) {
        for (IaNodeId i : starting[t]) add(i, +1);
        if (t < plan.size()) {
            held.run(t);
            const Transfer& x = plan.node(t).cost.transfer;
            for (std::size_t s = 0; s < S; ++s)
                peak[s] =
                    std::max(peak[s], resident[s] + buffer_bytes(x, s) + held.while_running(s));
        } else {
            for (std::size_t s = 0; s < S; ++s)
                peak[s] = std::max(peak[s], resident[s] + after[s] + held.kept(s));
        }
        for (IaNodeId i : ending[t]) add(i, -1);
    }
    return peak;
}

}  // namespace tra::ia
