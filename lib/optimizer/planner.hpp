#pragma once
// The one planning entry of tra: a program and a request in, ranked IA plans out. `tra plan`,
// `tra explain` and `tra run` (on rank 0 only; the other ranks receive the chosen plan,
// docs/runtime.md) all plan through it, so no two of them can rank, pin or filter differently.
//
//   1. logical rewrites (optimizer/logical_rewrites.hpp): they never raise a cost, so they run
//      before the search; their log is kept for explain
//   2. the search (optimizer/search.hpp) over strategies and starting placements, restricted by
//      the request's pins and fixed input placements
//   3. ranking under the request's cost model (optimizer/plan_order.hpp), the search's own
//      order; the time model's seconds are ia::estimated_seconds under request.time
//   4. plans whose predicted peak exceeds the memory budget are dropped (listed, cheapest first)
//   5. the first `top` are kept; choose_plan picks the request's rank among them
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/device_memory.hpp"
#include "ia/placement.hpp"
#include "ia/time_estimate.hpp"
#include "optimizer/logical_rewrites.hpp"
#include "optimizer/plan_order.hpp"
#include "optimizer/search.hpp"
#include "tra/program.hpp"

namespace tra::optimizer {

struct PlanRequest {
    int sites = 1;
    std::optional<std::size_t> rank;                        // which plan to choose, 1-based; else 1
    std::map<std::string, std::string> pins;                // TRA node name -> strategy name
    std::map<std::string, ia::Placement> input_placements;  // input name -> where it starts
    Tiling tiling_pins;                // `tile: auto` input -> its whole tile (pins "A@1024x512")
    CostModel cost = CostModel::Time;  // the default ranking (CHANGES.md)
    ia::TimeModel time;                // the time model's profile and hosts
    std::optional<std::int64_t> memory_per_site;  // drop plans whose peak exceeds it
    // The run checks its outputs (`tra run --verify`): peaks count the operands the check keeps
    // and its scratch (ia::plan_verification), so the budget drops the plans it would not fit.
    bool verify = false;
    // Where the run keeps its tiles (`tra run --device gpu`: on the device): the einsum kernels'
    // scratch in the peaks is the CPU's kept buffers or the GPU's per-call copies
    // (ia::kernel_scratch).
    Residence tiles = Residence::Host;
    std::size_t top = static_cast<std::size_t>(-1);  // how many ranked plans to keep
    // Threads planning `tile: auto` tilings at once (tiling_search.hpp); 0: one per hardware
    // thread, at most 8 (each holds one tiling's search). The plans do not depend on it.
    std::size_t planner_threads = 0;
    // Costs shared by the searches of several tilings (ia/shared_costs.hpp); the tiling search
    // sets it. Changes no result.
    std::shared_ptr<ia::SharedCosts> shared_costs;
};

struct DroppedPlan {
    std::string name;
    std::int64_t peak_bytes = 0;
};

struct RankedPlans {
    std::unique_ptr<Program> program;  // the plans point at it: keep it at one address
    // With `tile: auto` (tiling_search.hpp): the programs of the other tilings' plans; `program`
    // is the first plan's.
    std::vector<std::unique_ptr<Program>> other_programs;
    int sites = 0;
    std::vector<RankedPlan> plans;     // best first under the request's cost model
    std::vector<double> seconds;       // ia::estimated_seconds of each plan, same order
    std::vector<DroppedPlan> dropped;  // over the memory budget, cheapest first
    RewriteLog rewrites;               // logical rewrites applied before the search
    ia::MachineProfile profile;        // the time model's profile (request.time.profile)
};

// Plans `program` (as loaded from its workflow) for request.sites sites. Throws Error (BadInput)
// for fewer than one site, a pin or input placement the search refuses (search.hpp), an input
// placement naming no input of the program, and when no plan fits the memory budget (naming what
// the cheapest needs).
RankedPlans rank_plans(Program program, const PlanRequest& request);

// The plan request.rank names (the first when unset). Throws Error (BadInput) for a rank beyond
// the ranked plans.
const RankedPlan& choose_plan(const RankedPlans& ranked, const PlanRequest& request);

}  // namespace tra::optimizer
