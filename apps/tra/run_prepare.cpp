#include "run_prepare.hpp"

#include <algorithm>
#include <iostream>
#include <sstream>

#include "core/content_hash.hpp"
#include "ia/fused_joins.hpp"
#include "ia/gemm_pricing.hpp"
#include "ia/peak_memory.hpp"
#include "ia/verification_plan.hpp"
#include "kernels/blas_threads.hpp"
#include "kernels/gemm_pricing.hpp"
#include "kernels/parallel_for.hpp"
#include "optimizer/tiling_search.hpp"
#include "plan_request.hpp"
#include "runtime/broadcast_text.hpp"
#include "workflow/machine_profile_file.hpp"
#include "workflow/plan_file.hpp"
#include "workflow/workflow_loader.hpp"

namespace tra::cli {

namespace {

// Predicted seconds per IA node, a fused join's moved to the aggregate that computes it: the
// runtime runs the pair in that aggregate's step, so the two are compared there as one.
std::vector<double> predicted_per_operator(const ia::Plan& plan, const ia::TimeModel& model) {
    std::vector<double> out;
    for (const ia::OperatorTime& t : ia::operator_times(plan, model)) out.push_back(t.seconds());
    const auto fused = ia::fused_joins(plan);
    for (std::size_t id = 0; id < fused.size(); ++id)
        if (fused[id]) {
            out.at(*fused[id]) += out[id];
            out[id] = 0;
        }
    // A loop's carry moves follow `write` (plan.size()), as in the report (executor.hpp).
    const std::vector<double> carry = ia::carry_seconds(plan, model);
    if (!carry.empty()) {
        out.push_back(0.0);
        out.insert(out.end(), carry.begin(), carry.end());
    }
    return out;
}

}  // namespace

void warn_if_profile_differs(const ia::MachineProfile& profile, int threads) {
    if (profile.source == "built-in") return;
    const std::string core = kernels::blas_core_name();
    if (!profile.blas_core.empty() && !core.empty() && core != profile.blas_core)
        std::cerr << "tra: warning: machine profile " << profile.source
                  << " was measured with OpenBLAS core " << profile.blas_core << ", this run uses "
                  << core << ": its predicted seconds are for another kernel\n";
    if (profile.blas_threads != threads)
        std::cerr << "tra: warning: machine profile " << profile.source << " was measured with "
                  << profile.blas_threads << " BLAS thread(s) per rank, this run uses " << threads
                  << "\n";
}

Prepared prepare(const RunOptions& opt, const runtime::RankAgreement& agree, MPI_Comm comm,
                 std::optional<std::int64_t> plan_memory, const runtime::HostLayout& hosts,
                 Residence tiles) {
    workflow::LoadOptions load;
    load.output_dir = opt.out_dir;
    load.max_tuples = opt.max_tuples;
    Prepared prep;
    const int rank = agree.rank(), size = agree.size();
    const bool plan_file = workflow::is_plan_file(opt.workflow);

    // 1. Rank 0 chooses the plan of a workflow.
    std::string text;
    ia::TimeModel model;
    const auto plan_on_rank0 = [&] {
        if (plan_file && !opt.plan.empty())
            throw Error("--plan picks among a workflow's plans; " + opt.workflow +
                        " is a plan file, which is the plan");
        if (rank != 0) return;
        model = time_model(opt.time, size, hosts.host_of_rank(size));
        prep.profile = model.profile;
        if (plan_file) return;
        // The workflow as written, before any logical rewrite: the --check oracle.
        prep.original =
            std::make_unique<const Program>(workflow::load_workflow(opt.workflow, load));
        optimizer::PlanRequest request;
        request.sites = size;
        apply_plan_flag(opt.plan, request);
        request.cost = opt.cost;
        request.time = model;
        request.memory_per_site = plan_memory;
        request.verify = opt.verify;
        request.tiles = tiles;
        // Only the chosen plan is needed: the tiling search keeps no more than that.
        request.top = request.rank.value_or(1);
        const optimizer::RankedPlans ranked = [&] {
            try {
                return optimizer::rank_tiled_plans(
                    *prep.original, workflow::program_of_tiling(opt.workflow, load), request);
            } catch (const Error& e) {
                if (!plan_memory) throw;
                throw Error(e.message() +
                            " (no --memory-per-site was given: that is the default budget, "
                            "printed above; run on more ranks or pass --memory-per-site)");
            }
        }();
        const optimizer::RankedPlan& chosen = optimizer::choose_plan(ranked, request);
        // With tile: auto the --check oracle is the workflow cut as the chosen plan cuts it.
        if (!chosen.plan.program().tiling.empty())
            prep.original = std::make_unique<const Program>(
                workflow::program_of_tiling(opt.workflow, load)(chosen.plan.program().tiling));
        std::ostringstream out;
        workflow::write_plan_file(out, chosen.plan, opt.workflow, chosen.name, "",
                                  ranked_by(ranked, opt.cost));
        text = out.str();
    };
    agree.step(plan_on_rank0, runtime::Waiting::Sleeping);  // leaves the cores to rank 0's planner

    // 2. Every rank reads the plan: the plan file, or rank 0's text.
    if (!plan_file) runtime::broadcast_text(text, comm);
    agree.step([&] {
        workflow::LoadedPlan loaded =
            plan_file ? workflow::load_plan_file(opt.workflow, load)
                      : workflow::read_plan_text(text, "the plan rank 0 chose", load);
        if (loaded.plan.sites() != size)
            throw Error("plan file " + opt.workflow + " was made for " +
                        std::to_string(loaded.plan.sites()) + " sites, but this run has " +
                        std::to_string(size) + " ranks; run it with mpirun -n " +
                        std::to_string(loaded.plan.sites()) + " or plan again with --sites " +
                        std::to_string(size));
        prep.name = loaded.name;
        if (rank == 0)
            prep.plan_hash = plan_file ? file_content_hash(opt.workflow) : content_hash(text);
        prep.plan.emplace(loaded.plan);
        prep.program = std::move(loaded.program);
        prep.totals = ia::annotate_costs(*prep.plan);
        // Its operands stay until the end, and the check has scratch (the peak: below).
        if (opt.verify) prep.verification.emplace(ia::plan_verification(*prep.plan));
        if (rank == 0) prep.predicted_seconds = predicted_per_operator(*prep.plan, model);
    });
    // Every rank's per-operator limit (--operator-timeout-factor) needs rank 0's prediction.
    runtime::broadcast_numbers(prep.predicted_seconds, comm);
    // Every rank's einsum kernels choose their GEMM plans (lanes or BLAS) by the profile that
    // priced the plan (ia/gemm_pricing.hpp): rank 0's, as text, which every rank reads back.
    std::string profile_text = rank == 0 ? workflow::machine_profile_yaml(prep.profile) : "";
    runtime::broadcast_text(profile_text, comm);
    agree.step([&] {
        ia::MachineProfile profile =
            workflow::read_machine_profile_text(profile_text, "rank 0's machine profile");
        // The peak with the kernels' scratch as they will plan it by this profile, on this
        // run's threads (set before: run.cpp) or its GPU.
        prep.scratch =
            ia::kernel_scratch(*prep.plan, profile, nullptr, kernels::kernel_threads(), tiles);
        const ia::VerificationPlan none;
        const ia::VerificationPlan& v = prep.verification ? *prep.verification : none;
        prep.totals.peak_per_site =
            ia::peak_per_site(*prep.plan, v.kept, v.scratch_per_site, &prep.scratch);
        prep.totals.peak_bytes =
            *std::max_element(prep.totals.peak_per_site.begin(), prep.totals.peak_per_site.end());
        kernels::cpu::use_gemm_pricing(ia::ProfileGemmPricing::holding(std::move(profile)));
    });
    return prep;
}

}  // namespace tra::cli
