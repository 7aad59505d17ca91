#include "ia/kernel_scratch.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <variant>

#include "ia/operator_spec.hpp"

namespace tra::ia {

namespace {

// Whether `site` computes calls of node n: a join leaves a tile per call it computes there.
bool computes_on(const IaNode& n, std::size_t site) {
    return site < n.cost.resident.size() && n.cost.resident[site] > 0;
}

}  // namespace

PlanScratch kernel_scratch(const Plan& plan, const MachineProfile& profile, ScratchMemo* shared,
                           int threads, Residence tiles) {
    if (threads <= 0) threads = profile.blas_threads;
    PlanScratch out(plan.size());
    const ProfileGemmPricing pricing(profile);
    // Joins of one kernel on tiles of the same shapes plan alike: worked out once.
    ScratchMemo own;
    ScratchMemo& memo = shared ? *shared : own;
    for (IaNodeId i = 0; i < plan.size(); ++i) {
        const IaNode& n = plan.node(i);
        if (!operator_spec(n.op).joins || !n.logical) continue;
        const auto* join = std::get_if<JoinOp>(&*n.logical);
        if (!join) continue;
        const Shape shapes[] = {plan.relation(n.inputs[0]).type.bound,
                                plan.relation(n.inputs[1]).type.bound};
        const DType dtype = plan.relation(n.id).type.dtype;
        const auto key = std::tuple{join->kernel.str(), shapes[0], shapes[1], dtype};
        auto found = memo.find(key);
        if (found == memo.end())
            found = memo.emplace(key, tiles == Residence::Device
                                          ? einsum_call_scratch_on_gpu(join->kernel, shapes, dtype)
                                          : einsum_call_scratch(join->kernel, shapes, pricing,
                                                                dtype, threads))
                        .first;
        const CallScratch& call = found->second;
        if (call.kept.total() > 0 || call.during_call > 0) out[i] = NodeScratch{dtype, call};
    }
    return out;
}

bool any_scratch(const PlanScratch& scratch) {
    return std::any_of(scratch.begin(), scratch.end(),
                       [](const std::optional<NodeScratch>& s) { return s.has_value(); });
}

HeldScratch::HeldScratch(const Plan& plan, const PlanScratch* scratch)
    : plan_(plan), scratch_(scratch) {
    if (!scratch) return;  // nothing held: no per-site state
    const auto sites = static_cast<std::size_t>(plan.sites());
    kept_.resize(sites);
    kept_total_.assign(sites, 0);
    during_.assign(sites, 0);
}

void HeldScratch::run(IaNodeId t) {
    if (!scratch_) return;
    std::fill(during_.begin(), during_.end(), 0);
    if (t >= scratch_->size() || !(*scratch_)[t]) return;
    const NodeScratch& s = *(*scratch_)[t];
    const kernels::cpu::GemmScratch& k = s.call.kept;
    const std::size_t first = s.dtype == DType::F32 ? 0 : kKinds;
    const std::int64_t needs[] = {k.permuted_a, k.permuted_b, k.permuted_out, k.panels};
    const IaNode& n = plan_.node(t);
    for (std::size_t site = 0; site < kept_.size(); ++site) {
        if (!computes_on(n, site)) continue;
        for (std::size_t b = 0; b < kKinds; ++b)
            kept_[site][first + b] = std::max(kept_[site][first + b], needs[b]);
        kept_total_[site] =
            std::accumulate(kept_[site].begin(), kept_[site].end(), std::int64_t{0});
        during_[site] = s.call.during_call;
    }
}

HeldScratch::Kept HeldScratch::kept_buffers(std::size_t site) const {
    Kept out;
    if (!scratch_) return out;
    for (std::size_t b = 0; b < kept_[site].size(); ++b) {
        const std::int64_t bytes = kept_[site][b];
        if (b % kKinds == kPanels)
            out.panels += bytes;
        else if (bytes > 0)
            out.copies.push_back(bytes);
    }
    return out;
}

}  // namespace tra::ia
