#pragma once
// The planning flags of `tra plan`, `tra explain` and `tra run` (--sites, --plan, --cost,
// --memory-per-site, --input-placement, --top, the time model's rates) turned into one
// optimizer::PlanRequest; planning itself is optimizer::rank_plans.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "optimizer/planner.hpp"
#include "tra/program.hpp"

namespace tra::cli {

struct PlanFlags {
    std::string workflow;
    std::optional<int> sites;  // --sites, else the workflow's sites:
    std::string plan;          // --plan: "", a rank N, or NODE=strategy,...
    optimizer::CostModel cost = optimizer::CostModel::Exact;
    std::optional<std::int64_t> memory_per_site;  // --memory-per-site
    std::vector<std::string> input_placements;    // --input-placement NAME=PLACEMENT
    std::size_t top = 10;
    ia::MachineRates rates;  // --flop-rate, --bandwidth (time model)
};

// --plan: a rank N sets request.rank, pins "AB=cmm,C=local" set request.pins. Throws Error
// (BadInput) for text that is neither.
void apply_plan_flag(const std::string& text, optimizer::PlanRequest& request);

// --input-placement NAME=PLACEMENT items into request.input_placements. Throws Error (BadInput)
// for an item without '=' or with unknown placement text.
void apply_input_placements(const std::vector<std::string>& items, optimizer::PlanRequest& request);

// The request the flags make for `program` (loaded from flags.workflow): its sites: when --sites
// is not given. Throws Error (BadInput) when neither gives a site count.
optimizer::PlanRequest plan_request(const PlanFlags& flags, const Program& program);

// Loads flags.workflow and plans it.
optimizer::RankedPlans plan_workflow(const PlanFlags& flags);

// The plan --plan picks among `ranked` (optimizer::choose_plan).
const optimizer::RankedPlan& choose_plan(const optimizer::RankedPlans& ranked,
                                         const PlanFlags& flags);

// "2.0 GB" style figure next to the exact integer, for tables people read.
std::string human_bytes(double bytes);

}  // namespace tra::cli
