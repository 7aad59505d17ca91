#pragma once
// One ranked list from the ranked plans of several tilings of a workflow (tiling_search.hpp,
// "result"): each plan's name gains its tiling first, so different tilings are different plans.
#include <string>
#include <vector>

#include "optimizer/planner.hpp"

namespace tra::optimizer {

// A plan's name with its program's tiling first: "A@1024x1024,B@1024x512," + strategies.
std::string tiled_plan_name(const Program& program, const std::string& strategies);

// The plans of `tilings` (each one tiling's ranked plans, at least one) in `cost`'s order, the
// first `top` kept, and their dropped plans cheapest first. The first plan's tiling's program
// becomes `program`, the other kept plans' `other_programs` (moved out of `tilings`).
RankedPlans merge_tiling_plans(const std::vector<RankedPlans*>& tilings, CostModel cost,
                               std::size_t top);

}  // namespace tra::optimizer
