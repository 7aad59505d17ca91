#pragma once
// What `tra plan` and `tra explain` share: loading a workflow, ranking its candidate IA plans
// under the chosen cost model and memory budget, and picking one by rank, name or pins.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ia/time_estimate.hpp"
#include "optimizer/logical_rewrites.hpp"
#include "optimizer/search.hpp"
#include "tra/program.hpp"

namespace tra::cli {

// exact: payload bytes; paper: the paper's floats; time: ia::estimated_seconds (compute on the
// busiest site plus its received bytes, per operator), which sees work left on one site.
enum class CostModel { Exact, Paper, Time };

struct PlanRequest {
    std::string workflow;
    std::optional<int> sites;  // --sites, else the workflow's sites:
    std::string plan;          // --plan: "", a rank N, or NODE=strategy,...
    CostModel cost = CostModel::Exact;
    std::optional<std::int64_t> memory_per_site;  // --memory-per-site
    std::vector<std::string> input_placements;    // --input-placement NAME=PLACEMENT
    std::size_t top = 10;
    ia::MachineRates rates;  // --flop-rate, --bandwidth (time model)
};

struct DroppedPlan {
    std::string name;
    std::int64_t peak_bytes = 0;
};

struct RankedPlans {
    std::unique_ptr<Program> program;  // the plans point at it: keep it at one address
    int sites = 0;
    std::vector<optimizer::RankedPlan> plans;  // best first under the request's cost model
    std::vector<double> seconds;               // ia::estimated_seconds of each plan, same order
    std::vector<DroppedPlan> dropped;          // over the memory budget, cheapest first
    optimizer::RewriteLog rewrites;            // logical rewrites applied before the search
};

// Plans the workflow. `--plan` pins (NODE=strategy,...) restrict the search; a rank does not.
// Throws Error (BadInput) when no site count is given, a pin or input placement is bad, or no
// plan fits the memory budget (naming what the cheapest needs).
RankedPlans rank_plans(const PlanRequest& request);

// The plan `--plan` names: rank N (1-based), else the first plan (pins were applied when
// ranking). Throws Error (BadInput) for a rank beyond the list.
const optimizer::RankedPlan& choose_plan(const RankedPlans& ranked, const std::string& plan);

std::string cost_name(CostModel m);

// "2.0 GB" style figure next to the exact integer, for tables people read.
std::string human_bytes(double bytes);

}  // namespace tra::cli
