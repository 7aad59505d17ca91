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
    run.write_outputs();
    run.write_trace();
    return run.reduce_over_ranks();
}

}  // namespace tra::runtime
