#pragma once
// Planning a workflow whose inputs have `tile: auto` dimensions (docs/workflow-format.md,
// "Automatic tiling"): an outer search over tilings around the planner (planner.hpp), which
// ranks each tiling's program as it ranks any program, and one ranked list of all of them.
//
//   space     each class of tied dimensions (tra/tiling.hpp) takes a tile size extent / c for
//             a tile count c that divides the extent, c <= 16 x sites; a class with an
//             explicitly tiled member takes that tile; an input is cut into at most
//             16 x sites tiles, and no join makes more than kCallsPerSite x sites kernel
//             calls. Pins (PlanRequest::tiling_pins) fix an input's tile.
//   search    every tiling when there are at most kExhaustiveTilings; otherwise a descent from
//             about sqrt(sites) tiles per dimension: each step tries every class twice and
//             half as finely cut and each class alone so; where none improves, each class one
//             count finer and coarser; where none of those improves, each class alone four
//             times and a quarter as finely cut, and each padded class to the nearest counts
//             that divide its extent; and moves to the best while that improves the first
//             plan (under the request's cost model). Classes of one group (TileClass::group:
//             an einsum re-tiles one into the other) move together, cut alike; where groups
//             hold several classes the descent then goes on from the best with each class
//             moving alone, so a re-tiling is placed where cutting apart improves the first
//             plan (tiling_moves.hpp). Each tiling is planned once; one whose
//             program cannot be built (the tuple cap, a refused re-tiling) is skipped, and
//             under the time model so is one whose compute alone (ia::compute_lower_bound)
//             cannot beat the best first plan found before its batch.
//   threads   a descent step's tilings (the exhaustive search's, kTilingBatch at a time) are
//             one batch, planned on PlanRequest::planner_threads threads at once; the bound
//             is the batch's, so the plans do not depend on the thread count.
//   result    the plans of the tilings planned, merged in the request's order
//             (tiling_merge.hpp); only the `top` tilings with the best first plans keep theirs.
//             Each plan's name starts with its tiling, "A@1024x1024,B@1024x512," before the
//             strategies, so different tilings are different plans and a name is also a --plan
//             pin.
#include <cstddef>
#include <functional>

#include "optimizer/planner.hpp"
#include "tra/tiling.hpp"

namespace tra::optimizer {

inline constexpr std::size_t kExhaustiveTilings = 64;
// The exhaustive search plans its tilings in batches of this many, each bounded by the best
// first plan of the batches before it: fixed, so the plans do not depend on the threads.
inline constexpr std::size_t kTilingBatch = 16;
// A tiling whose program has a join of more than this many tuples (kernel calls) per site is
// not planned.
inline constexpr std::int64_t kCallsPerSite = 64;

// Builds the workflow's program with a given tiling of its auto inputs (workflow::load_workflow
// with LoadOptions::tiling); throws Error for a tiling it refuses.
using ProgramOfTiling = std::function<Program(const Tiling&)>;

// `loaded` is the workflow's program as loaded without a tiling: its tiling_space is searched.
// Without auto inputs this is rank_plans(loaded, request). Throws Error (BadInput) for a tiling
// pin on an input without auto dimensions or with a tile that does not divide its shape, and
// when no tiling gives a plan (the first tiling's error).
// `exhaustive_limit` (tests) sets how many tilings are planned all before the descent is used.
RankedPlans rank_tiled_plans(Program loaded, const ProgramOfTiling& build,
                             const PlanRequest& request,
                             std::size_t exhaustive_limit = kExhaustiveTilings);

// "A@1024x1024,B@1024x512": a program's chosen tiling as plan names and pins write it; empty
// when it has none.
std::string tiling_name(const Program& program);

}  // namespace tra::optimizer
