#pragma once
// The memory budget of `tra run` (docs/runtime.md, "Memory"): what each rank may hold, why, and
// the check of a plan's predicted peak against it before any work.
#include <mpi.h>

#include <cstdint>
#include <string>

#include "run_options.hpp"
#include "runtime/device_context.hpp"
#include "runtime/host_layout.hpp"
#include "runtime/rank_agreement.hpp"

namespace tra::cli {

struct Budget {
    std::int64_t bytes = 0;  // 0: no limit known, nothing is checked
    std::string reason;
};

// --memory-per-site; on GPU runs the GPU memory budget per rank (DeviceContext::memory_budget:
// free memory less headroom, split among the ranks sharing a GPU); else the tightest limit in
// force (runtime/memory_limits.hpp: physical memory, cgroups, Slurm), the smallest over all
// ranks, so that the one plan fits every rank. Collective.
Budget memory_budget(const RunOptions& opt, const runtime::DeviceContext& device,
                     const runtime::HostLayout& hosts, const runtime::RankAgreement& agree,
                     MPI_Comm comm);

// Refuses (Error, BadInput), before any work, plan `name` when its predicted peak `needs` on
// this rank's site exceeds the budget: "needs X, have Y (REASON)".
void check_memory(const Budget& budget, const std::string& name, std::int64_t needs, int rank);

}  // namespace tra::cli
