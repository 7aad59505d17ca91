#pragma once
// What makes an IA plan executable, in one place: the compiler uses infer_output_placement to
// set each node's placement, and validate() re-derives every placement and rejects a plan (built
// by hand, read from a file, or produced by a rewrite) whose local operators would be wrong.
//
// Validity, per node (docs/cost-model.md, "IA plans"); each operator's own rule is the
// `placement` (and `problem`) of its spec, lib/ia/operators/<op>.cpp, and this file applies the
// rules common to all (arity, partials, replicated inputs):
//   local_join       its inputs are co_located on the join keys (join_output_placement)
//   local_aggregate  each group is on one site: input Part(d) with every d in `by` (output
//                    Part(positions of d within by, in d's order)), unreplicated Grid with both
//                    grid dims in `by`, or All (output All); the same for a concat's group-by
//   over Unknown     local_join and local_aggregate are rejected; local_filter and maps work
//                    tuple by tuple, so they are valid anywhere (their output stays Unknown,
//                    except that a rekey of an All relation is All)
//   partial_aggregate  a TRA aggregate over an input with each tuple on one site (Part or an
//                    unreplicated Grid); output placement Unknown (ia/partials.hpp)
//   partials         (a partial_aggregate's output, or a shuffle of it) may be read only by a
//                    shuffle, or by the local_aggregate of the same relation, which groups by
//                    every key position and so needs them shuffled: Part -> the same Part
//   any placement    a Grid needs grid_rows * grid_cols <= S
//   and every node's stored placement equals the inferred one.
#include <optional>
#include <string>
#include <utility>

#include "ia/plan.hpp"

namespace tra::ia {

struct PlacementInference {
    std::optional<Placement> placement;  // empty when the node is invalid
    std::string why;                     // when empty: what is wrong, for the error message

    static PlacementInference valid(Placement p) { return {std::move(p), {}}; }
    static PlacementInference invalid(std::string why) { return {std::nullopt, std::move(why)}; }
};

// The placement `node` produces from its inputs' stored placements. Input nodes keep the
// placement they were given (reading in place is free), unless it is Unknown.
PlacementInference infer_output_placement(const Plan& plan, const IaNode& node);

// What is wrong with the first invalid node, naming its id, its origin and why:
// "IA node #4 (local_join producing 'AB'): inputs are not co-located on the join keys ...";
// nullopt for a valid plan. For callers that ask whether a plan (a rewrite's) validates.
std::optional<std::string> validation_problem(const Plan& plan);

// Throws Error (BadInput) with validation_problem's message when the plan is invalid.
void validate(const Plan& plan);

}  // namespace tra::ia
