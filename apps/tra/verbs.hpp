#pragma once
// Each verb of the command line registers itself on the app and reports its exit code through
// `exit_code` (0 ok, 1 result differs or run failed, 2 bad input).
#include <CLI/CLI.hpp>

#include "plan_request.hpp"

namespace tra::cli {

void add_validate(CLI::App& app, int& exit_code);
void add_gen(CLI::App& app, int& exit_code);
void add_run(CLI::App& app, int& exit_code);
void add_diff(CLI::App& app, int& exit_code);
void add_kernels(CLI::App& app, int& exit_code);
void add_plan(CLI::App& app, int& exit_code);
void add_explain(CLI::App& app, int& exit_code);
void add_calibrate(CLI::App& app, int& exit_code);

// --sites, --plan, --memory-per-site, --input-placement and the cost options: plan and explain.
void add_plan_request_options(CLI::App* cmd, PlanFlags& request);
// --max-tuples (TRA_MAX_TUPLES): every verb that loads a workflow.
void add_max_tuples_option(CLI::App* cmd, std::int64_t& max_tuples);
// --cost exact|paper|time, --machine, --flop-rate, --bandwidth: plan, explain and run.
void add_cost_options(CLI::App* cmd, optimizer::CostModel& cost, TimeFlags& time);

}  // namespace tra::cli
