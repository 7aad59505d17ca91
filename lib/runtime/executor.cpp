#include "runtime/executor.hpp"

#include "ia/site_tracing.hpp"
#include "runtime/execution.hpp"

namespace tra::runtime {

std::vector<ia::SiteMap> trace_sites(const ia::Plan& plan) {
    return ia::trace_plan_sites(plan).value();
}

ExecutionResult execute(const ia::Plan& plan, MPI_Comm comm, const ExecuteOptions& options) {
    Execution run(plan, comm, options);
    run.reserve_tiles();
    for (const ia::IaNode& n : plan.nodes()) run.run_operator(n);
    run.verify_outputs();
    run.write_outputs();
    run.write_trace();
    ExecutionResult result = run.reduce_over_ranks();
    run.report_verification(result);
    return result;
}

}  // namespace tra::runtime
