#include "runtime/executor.hpp"

#include "core/error.hpp"
#include "ia/site_tracing.hpp"
#include "runtime/execution.hpp"

namespace tra::runtime {

namespace {

[[noreturn]] void fail(const std::string& message) {
    throw Error(message, {}, ErrorKind::Failed);
}

using ia::IaNode;

}  // namespace

std::vector<ia::SiteMap> trace_sites(const ia::Plan& plan) {
    ia::TracedPlanSites traced = ia::trace_plan_sites(plan);
    if (!traced.sites) fail(traced.problem);
    return std::move(*traced.sites);
}

ExecutionResult execute(const ia::Plan& plan, MPI_Comm comm, const ExecuteOptions& options) {
    Execution run(plan, comm, options);
    run.reserve_tiles();
    for (const IaNode& n : plan.nodes()) run.run_operator(n);
    run.write_outputs();
    return run.reduce_over_ranks();
}

}  // namespace tra::runtime
