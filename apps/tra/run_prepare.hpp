#pragma once
// `tra run`, step 2 of docs/runtime.md "How a plan runs": every rank comes to hold the same plan,
// chosen by rank 0 (or read from a plan file), with its predicted costs and seconds.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/device_memory.hpp"
#include "ia/kernel_scratch.hpp"
#include "ia/plan_costs.hpp"
#include "ia/time_estimate.hpp"
#include "ia/verification_plan.hpp"
#include "run_options.hpp"
#include "runtime/host_layout.hpp"
#include "runtime/output_files.hpp"
#include "runtime/rank_agreement.hpp"

namespace tra::cli {

struct Prepared {
    std::unique_ptr<const Program> program;   // the plan points at it (after logical rewrites)
    std::unique_ptr<const Program> original;  // the workflow as loaded: the --check oracle
    std::optional<ia::Plan> plan;
    std::string name;
    std::string plan_hash;  // rank 0: content hash of the plan-file text (run_provenance)
    ia::PlanTotals totals;
    std::optional<ia::VerificationPlan> verification;  // --verify: what the checks keep and need
    ia::PlanScratch scratch;  // the kernels' scratch, as this run's kernels will plan it
    std::unique_ptr<runtime::OutputFiles> files;  // rank 0
    ia::MachineProfile profile;                   // rank 0: the time model's
    // Per IA node (run_report, per-operator limits): rank 0's time model's, on every rank.
    std::vector<double> predicted_seconds;
};

// A profile measured with another BLAS core or thread count predicts another machine: warns.
void warn_if_profile_differs(const ia::MachineProfile& profile, int threads);

// Makes every rank hold the same plan (docs/runtime.md, "How a plan runs", step 2): a plan file
// is read by every rank; for a workflow, rank 0 alone plans and sends the chosen plan as
// plan-file text, which every rank (rank 0 too) decodes and validates, so no other rank searches.
// `plan_memory`: plans must fit it (a default budget), else no limit. `tiles`: where the run
// keeps its tiles (on the device for --device gpu), which decides whose kernel scratch the peaks
// count.
Prepared prepare(const RunOptions& opt, const runtime::RankAgreement& agree, MPI_Comm comm,
                 std::optional<std::int64_t> plan_memory, const runtime::HostLayout& hosts,
                 Residence tiles);

}  // namespace tra::cli
