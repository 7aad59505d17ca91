#pragma once
// The planning flags of `tra plan`, `tra explain` and `tra run` (--sites, --plan, --cost,
// --memory-per-site, --input-placement, --top, the time model's rates) turned into one
// optimizer::PlanRequest; planning itself is optimizer::rank_plans.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "json_writer.hpp"
#include "optimizer/planner.hpp"
#include "tra/program.hpp"
#include "tra/program_builder.hpp"
#include "workflow/plan_file.hpp"

namespace tra::cli {

// The time model's flags: --machine (else TRA_MACHINE, else the built-in default profile),
// --ranks-per-host, and the overrides --flop-rate and --bandwidth.
struct TimeFlags {
    std::string machine;                // --machine FILE
    std::optional<int> ranks_per_host;  // --ranks-per-host (plan, explain): sites per host
    std::optional<double> flop_rate;    // --flop-rate: every gemm and loop rate, both dtypes
    std::optional<double> bandwidth;    // --bandwidth: both links' bytes per second
};

struct PlanFlags {
    std::string workflow;
    std::optional<int> sites;  // --sites, else the workflow's sites:
    std::string plan;          // --plan: "", a rank N, or NODE=strategy,...
    optimizer::CostModel cost = optimizer::CostModel::Time;
    std::optional<std::int64_t> memory_per_site;  // --memory-per-site
    std::vector<std::string> input_placements;    // --input-placement NAME=PLACEMENT
    std::size_t top = 10;
    TimeFlags time;
    std::int64_t max_tuples = kDefaultMaxTuples;  // --max-tuples
};

// The machine profile the flags select: --machine FILE, else the file TRA_MACHINE names, else
// the built-in default. Throws Error (BadInput, naming file:line and field) for a bad profile.
ia::MachineProfile machine_profile(const TimeFlags& flags);

// The time model for `sites` sites: machine_profile with --flop-rate and --bandwidth applied,
// hosts from --ranks-per-host (`host_of_site` when given instead: a run's real layout).
ia::TimeModel time_model(const TimeFlags& flags, int sites,
                         const std::vector<int>& host_of_site = {});

// "machine profile: NAME (SOURCE, HASH)"; for the built-in default, also how to measure one.
std::string machine_line(const ia::MachineProfile& profile);

// "machine": {"name", "source", "content_hash"}: the profile in plan, explain and run JSON.
void write_machine_json(JsonWriter& j, const ia::MachineProfile& profile);

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

// What a plan file records about the ranking that chose its plan.
workflow::RankedBy ranked_by(const optimizer::RankedPlans& ranked, optimizer::CostModel cost);

// "2.0 GB" style figure next to the exact integer, for tables people read.
std::string human_bytes(double bytes);

}  // namespace tra::cli
