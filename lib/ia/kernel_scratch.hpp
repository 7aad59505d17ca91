#pragma once
// The memory the CPU kernels hold beside a plan's tiles (docs/cost-model.md, "Peak memory"): the
// scratch of the einsum kernel's GEMM plans (ia::CallScratch). Its kept buffers (TTGT's permuted
// copies, the lanes product's panels) are the calling thread's, one per kind and dtype, grown to
// the largest call's need and held to the end of the run; so while node t runs, a site holds per
// buffer the most that any node up to t needed there, plus what node t's calls take only while
// each runs (an operand summed first). A site needs scratch for a node where it computes one of
// its calls: where the node leaves tiles (NodeCost::resident).
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/device_memory.hpp"
#include "core/dtype.hpp"
#include "ia/gemm_pricing.hpp"
#include "ia/machine_profile.hpp"
#include "ia/plan.hpp"

namespace tra::ia {

struct NodeScratch {
    DType dtype = DType::F64;
    CallScratch call;  // one call's (a node's calls share their tiles' shapes)
};

// Per node in plan order; nullopt for a node whose calls need none.
using PlanScratch = std::vector<std::optional<NodeScratch>>;

// One call's scratch by its kernel, operand shapes and dtype: what plans of one program share.
using ScratchMemo = std::map<std::tuple<std::string, Shape, Shape, DType>, CallScratch>;

// Every local join's call scratch, its GEMM plans chosen by `profile` as `tra run` installs it
// for its kernels (ProfileGemmPricing), on `threads` threads per rank (the lanes product's panels
// depend on them; 0: the profile's BLAS threads, where the run's are not known). With `tiles` on
// the device (`tra run --device gpu`) the GPU's kernels run the joins: their scratch is
// einsum_call_scratch_on_gpu's, in the device memory that holds the tiles, and nothing is kept.
// `memo`, where given, keeps what was worked out for the next plan of the same profile, threads
// and residence.
PlanScratch kernel_scratch(const Plan& plan, const MachineProfile& profile,
                           ScratchMemo* memo = nullptr, int threads = 0,
                           Residence tiles = Residence::Host);

// Whether any node needs scratch.
bool any_scratch(const PlanScratch& scratch);

// What the sites hold in kernel scratch as the plan runs node by node, for peak_per_site.
class HeldScratch {
  public:
    // `scratch` may be null (no scratch: every figure 0) and must outlive this.
    HeldScratch(const Plan& plan, const PlanScratch* scratch);

    // Node t runs (nodes in plan order): its calls' kept buffers grow where they need more.
    void run(IaNodeId t);
    // What `site` holds while the last node passed to run() runs, and what it keeps after.
    std::int64_t while_running(std::size_t site) const {
        return scratch_ ? kept_total_[site] + during_[site] : 0;
    }
    std::int64_t kept(std::size_t site) const { return scratch_ ? kept_total_[site] : 0; }
    // The buffers `site` keeps by then: TTGT's permuted copies (host tiles as far as their size
    // makes them one, kernels/run_gemm_plan.cpp; the run reserves their mappings with the tiles')
    // and the lanes product's panels (kernel memory of its own).
    struct Kept {
        std::vector<std::int64_t> copies;  // bytes of each copy held
        std::int64_t panels = 0;
    };
    Kept kept_buffers(std::size_t site) const;

  private:
    // Per site, the kept buffers by dtype (f32, f64) and kind (A, B, product, panels).
    static constexpr std::size_t kKinds = 4, kPanels = 3;  // per dtype; panels the fourth kind
    using Buffers = std::array<std::int64_t, 2 * kKinds>;
    const Plan& plan_;
    const PlanScratch* scratch_;
    std::vector<Buffers> kept_;
    std::vector<std::int64_t> kept_total_, during_;  // per site: kept_'s sum; node t's calls
};

}  // namespace tra::ia
