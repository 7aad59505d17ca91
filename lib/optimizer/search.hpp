#pragma once
// Whole-plan search: the cross product of strategies (strategy.hpp) over the program's joins and
// aggregates, and of free starting placements of its inputs, each combination built into an IA
// plan, validated, costed (annotate_costs), and ranked.
//
//   name      "AB=cmm,C=local": NODE=strategy for every needed join and aggregate, in program
//             order. Plans with the same name differ only in where inputs start; only the
//             cheapest of them is kept, so the returned plans have distinct names.
//   order     SearchOptions::cost (plan_order.hpp): the time model's seconds (when cost is
//             time), else exact payload bytes, then paper floats, then name: a total,
//             deterministic order, the one the planner ranks by.
//   inputs    each input not fixed by SearchOptions::input_placements may start in Part[d] for
//             any single key position d (Part[] for key arity 0): reading in place is free, so
//             the search may choose; one position each keeps the set small. Where every
//             position has fewer keys than there are sites, also on the process grid
//             (Grid[0 x 1 on grid_shape(S)], unreplicated), which spreads the tiles further.
//   normal    every complete plan is first rewritten by the R2 rules that keep its strategies
//             (ia_rules.hpp, normalise_plan): e.g. a concat whose tiles are already grouped
//             runs in place instead of after Table 1's shuffle.
//   pins      NODE -> strategy restricts that node to that strategy.
//   cap       when the product of the choice counts (an upper bound on the combinations)
//             exceeds max_combinations, the search is a beam search instead: nodes are taken
//             in program order and after each one only the w cheapest partial plans (costs of
//             what is placed so far, same order; under the time model a join whose sum is not
//             placed yet counts as unfused) are extended, w between beam_width and
//             max_beam_width as beam_extensions allows (search.cpp, beam_width); of partial
//             plans that hold the same nodes of every relation still to be read
//             (beam_frontier.hpp) the cheapest goes first, the others only fill what room is
//             left. It returns up to w plans and may miss the optimum when a choice pays off
//             only later; a wider beam misses fewer.
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ia/placement.hpp"
#include "ia/plan.hpp"
#include "ia/plan_costs.hpp"
#include "ia/time_estimate.hpp"
#include "optimizer/plan_order.hpp"

namespace tra::optimizer {

struct SearchOptions {
    std::size_t top_k = 10;
    std::map<std::string, std::string> pins;  // TRA node name -> strategy name
    std::size_t max_combinations = 20000;
    std::size_t beam_width = 32;  // the fewest partial plans kept per step beyond max_combinations
    // A program with fewer choices keeps more, up to max_beam_width: as many as keep the beam's
    // extensions (width x the sum of every node's choice count) within beam_extensions. 0: the
    // width is beam_width (the tiling search, which plans many tilings, keeps it so).
    std::size_t beam_extensions = 16384;
    std::size_t max_beam_width = 256;
    std::map<NodeId, ia::Placement> input_placements;  // fixed starting placements
    CostModel cost = CostModel::Exact;                 // which plans are cheaper
    ia::TimeModel time;  // the time model: RankedPlan::seconds, and the order under `time`
    // Costs shared with other searches (the tiling search's), or null: changes no result.
    std::shared_ptr<ia::SharedCosts> shared_costs;
};

struct RankedPlan {
    std::string name;
    ia::Plan plan;
    ia::PlanTotals totals;
    double seconds = 0;  // ia::estimated_seconds under SearchOptions::time
};

// The K best plans, best first. Throws Error (BadInput) for a pin on a node that is not a
// needed join or aggregate, for a pinned strategy that the node's operator does not have or that
// applies in no combination (the message names the node and the strategies that do apply),
// and for an Unknown or misplaced fixed input placement.
std::vector<RankedPlan> search_plans(const Program& program, int sites,
                                     const SearchOptions& options = {});

// The starting placements the search tries for an input node: Part[d] for each key position.
std::vector<ia::Placement> candidate_input_placements(const Program& program, NodeId input,
                                                      int sites);

}  // namespace tra::optimizer
