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
    // A loop runs the plan once per iteration (loop_iteration.cpp); a program without one, once.
    for (std::int64_t i = run.first_iteration(); i <= run.last_iteration(); ++i) {
        run.begin_iteration(i);
        for (const ia::IaNode& n : plan.nodes()) run.run_operator(n);
        if (i < run.last_iteration()) {
            run.verify_outputs();  // --verify: every iteration's, before its values move on
            run.write_outputs(i);
            run.carry();
            run.checkpoint(i);
        }
        run.end_iteration();
    }
    run.verify_outputs();
    run.write_outputs(run.last_iteration());
    run.write_trace();
    ExecutionResult result = run.reduce_over_ranks();
    run.report_verification(result);
    result.trace_seconds = run.trace_seconds();
    return result;
}

}  // namespace tra::runtime
