#pragma once
// The large host tiles one rank will hold at once, taken before the first operator runs. The
// plan says exactly which tiles each node leaves on each site (NodeCost::resident), so the rank
// maps and prefaults their memory up front (core/host_mappings.hpp) rather than page by page
// inside its gemms and receives: the way a ScaLAPACK program allocates its matrices before it
// multiplies, and an out-of-memory shows before any work. docs/runtime.md, "Memory".
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ia/kernel_scratch.hpp"
#include "ia/plan.hpp"
#include "ia/verification_plan.hpp"

namespace tra::runtime {

// The mappings (host_mappings::length_for) of the node outputs alive on `site` while its busiest
// node runs, then more per length up to the most alive at once elsewhere, walking the plan as the
// peak model does (ia/peak_memory.hpp, ia/output_lifetimes.hpp); in all at most the site's
// predicted peak. Small tiles (glibc's) are not counted. With `verification` (`tra run
// --verify`), as its peak counts it: the operands the checks keep live to the end, and after the
// last node each output recomputed whole (ia::OutputCheck::in_chunks unset) is allocated in turn
// beside what is alive then, so the checks find their pages ready too (a check that faulted in
// its recomputed tiles took five times the operator it repeats). Chunks reuse each other's.
// With `scratch` (ia::kernel_scratch, as the run's kernels plan it), as the peak counts it: the
// einsum kernel's permuted copies are host tiles kept from the first join that needs them to the
// end, reserved with the tiles (else the first such join takes a reserved tile's mapping, or
// maps fresh pages and evicts cached ones, and the tiles after it fault); the scratch held
// outside mappings (the lanes product's panels) is left out of the room.
std::vector<std::size_t> tile_mappings_at_peak(const ia::Plan& plan, int site,
                                               const ia::VerificationPlan* verification = nullptr,
                                               const ia::PlanScratch* scratch = nullptr);

// The most bytes any site reserves (the sum of its tile_mappings_at_peak), what a run of `plan`
// takes before its first operator on its busiest rank.
std::int64_t reserved_bytes_at_peak(const ia::Plan& plan,
                                    const ia::VerificationPlan* verification = nullptr,
                                    const ia::PlanScratch* scratch = nullptr);

}  // namespace tra::runtime
