#include "runtime/tile_reservation.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>

#include "core/host_mappings.hpp"
#include "ia/kernel_scratch.hpp"
#include "ia/output_lifetimes.hpp"
#include "ia/peak_memory.hpp"

namespace tra::runtime {

std::vector<std::size_t> tile_mappings_at_peak(const ia::Plan& plan, int site,
                                               const ia::VerificationPlan* verification,
                                               const ia::PlanScratch* scratch) {
    const auto s = static_cast<std::size_t>(site);
    const std::vector<std::optional<ia::Lifetime>> lifetimes =
        ia::output_lifetimes(plan, verification ? verification->kept : std::vector<ia::IaNodeId>{});
    // Per node: its mapping length and how many tiles it leaves on the site.
    std::vector<std::size_t> length(plan.size(), 0);
    std::vector<std::int64_t> tiles(plan.size(), 0);
    for (ia::IaNodeId i = 0; i < plan.size(); ++i) {
        const std::size_t bytes = plan.relation(i).type.tile_bytes();
        const auto& resident = plan.node(i).cost.resident;
        if (bytes == 0 || s >= resident.size()) continue;
        length[i] = host_mappings::length_for(bytes);
        tiles[i] = resident[s] / static_cast<std::int64_t>(bytes);
    }
    // The steps: each node while it runs, then (verifying) each output recomputed whole
    // beside what is alive after the last node.
    const std::size_t steps = plan.size() + (verification ? verification->checks.size() : 0);
    const auto alive_at = [&](std::size_t step) {
        std::map<std::size_t, std::int64_t> alive;
        const ia::IaNodeId t = std::min<std::size_t>(step, plan.size());
        for (ia::IaNodeId i = 0; i < plan.size(); ++i)
            if (length[i] > 0 && lifetimes[i] && lifetimes[i]->alive_at(t))
                alive[length[i]] += tiles[i];
        if (step >= plan.size()) {
            const ia::OutputCheck& c = verification->checks[step - plan.size()];
            if (c.method == ia::VerifyMethod::Recompute && !c.in_chunks && length[c.node] > 0)
                alive[length[c.node]] += tiles[c.node];
        }
        return alive;
    };
    // Per step, the mappings alive: the busiest step's set is reserved whole (it is the largest
    // need, and within the peak), then other lengths' larger needs elsewhere while the peak
    // leaves room, shortest first. Each length's most is reached at a different step, so their
    // sum may pass the peak: a ffnn step whose inputs' tiles die before its weights' update,
    // reserved by length maxima shortest first, left its 2.4 MB tiles short by a fifth.
    std::map<std::size_t, std::int64_t> most, at_busiest;
    std::int64_t busiest = -1;
    ia::HeldScratch held(plan, scratch);  // the kernels' copies kept from their first join on
    for (std::size_t step = 0; step < steps; ++step) {
        std::map<std::size_t, std::int64_t> alive = alive_at(step);
        if (step < plan.size()) held.run(step);
        for (const std::int64_t bytes : held.kept_buffers(s).copies)
            if (const std::size_t l = host_mappings::length_for(static_cast<std::size_t>(bytes)))
                ++alive[l];
        std::int64_t bytes = 0;
        for (const auto& [l, n] : alive) {
            most[l] = std::max(most[l], n);
            bytes += n * static_cast<std::int64_t>(l);
        }
        if (bytes > busiest) {
            busiest = bytes;
            at_busiest = std::move(alive);
        }
    }
    const std::vector<std::int64_t> peak =
        verification
            ? ia::peak_per_site(plan, verification->kept, verification->scratch_per_site, scratch)
            : ia::peak_per_site(plan, {}, {}, scratch);
    // The peak less the scratch the kernels take outside these mappings (the lanes product's
    // panels, copies too small for a mapping of their own), as much as they hold at the end.
    const ia::HeldScratch::Kept at_end = held.kept_buffers(s);
    std::int64_t outside = at_end.panels;
    for (const std::int64_t bytes : at_end.copies)
        if (host_mappings::length_for(static_cast<std::size_t>(bytes)) == 0) outside += bytes;
    std::int64_t room = s < peak.size() ? peak[s] - outside : 0;
    std::vector<std::size_t> out;
    const auto take = [&](std::size_t l, std::int64_t n) {
        for (std::int64_t k = 0; k < n && room >= static_cast<std::int64_t>(l); ++k) {
            out.push_back(l);
            room -= static_cast<std::int64_t>(l);
        }
    };
    for (const auto& [l, n] : at_busiest) take(l, n);
    for (const auto& [l, n] : most) take(l, n - at_busiest[l]);
    return out;
}

std::int64_t reserved_bytes_at_peak(const ia::Plan& plan, const ia::VerificationPlan* verification,
                                    const ia::PlanScratch* scratch) {
    std::int64_t most = 0;
    for (int site = 0; site < plan.sites(); ++site) {
        std::int64_t bytes = 0;
        for (std::size_t length : tile_mappings_at_peak(plan, site, verification, scratch))
            bytes += static_cast<std::int64_t>(length);
        most = std::max(most, bytes);
    }
    return most;
}

}  // namespace tra::runtime
