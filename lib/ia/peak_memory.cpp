#include "ia/peak_memory.hpp"

#include <algorithm>

#include "ia/loop_carry.hpp"
#include "ia/output_lifetimes.hpp"

namespace tra::ia {

namespace {

// A per-site figure, or 0 for a Transfer that never counted per site (nothing moved).
std::int64_t at(const std::vector<std::int64_t>& v, std::size_t site) {
    return site < v.size() ? v[site] : 0;
}

}  // namespace

std::vector<std::int64_t> exchange_buffers(const Transfer& t, int sites) {
    std::vector<std::int64_t> out(static_cast<std::size_t>(sites), 0);
    for (std::size_t s = 0; s < out.size(); ++s)
        out[s] = at(t.sent_payload, s) + at(t.sent_overhead, s) + at(t.received_payload, s) +
                 at(t.received_overhead, s);
    return out;
}

std::vector<std::int64_t> peak_per_site(const Plan& plan, const std::vector<IaNodeId>& kept,
                                        const std::vector<std::int64_t>& at_end) {
    const auto S = static_cast<std::size_t>(plan.sites());
    std::vector<std::optional<Lifetime>> lifetimes = output_lifetimes(plan);
    for (IaNodeId k : kept)
        if (k < lifetimes.size() && lifetimes[k]) lifetimes[k]->last = plan.size();

    // Step t runs node t, with its exchange buffers; step plan.size() is after the last node,
    // with `at_end` (what a verifying run allocates then) or, between two iterations of a loop,
    // the carry's buffers and new tiles (never both: a run verifies after its last iteration).
    std::vector<std::int64_t> after = at_end;
    after.resize(S, 0);
    const std::vector<std::int64_t> carry = carry_scratch(plan, carry_moves(plan));
    for (std::size_t s = 0; s < S; ++s) after[s] = std::max(after[s], carry[s]);
    std::vector<std::int64_t> peak(S, 0);
    for (IaNodeId t = 0; t <= plan.size(); ++t) {
        std::vector<std::int64_t> live =
            t < plan.size() ? exchange_buffers(plan.node(t).cost.transfer, plan.sites()) : after;
        live.resize(S, 0);
        for (IaNodeId i = 0; i < plan.size(); ++i)
            if (lifetimes[i] && lifetimes[i]->alive_at(t))
                for (std::size_t s = 0; s < S; ++s) live[s] += at(plan.node(i).cost.resident, s);
        for (std::size_t s = 0; s < S; ++s) peak[s] = std::max(peak[s], live[s]);
    }
    return peak;
}

}  // namespace tra::ia
