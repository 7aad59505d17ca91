#pragma once
// What `tra run --verify` checks of each output and how (docs/reliability.md, "Verifying
// outputs"), decided from the plan alone, once: the runtime runs these checks
// (runtime/output_verification.hpp) and the peak memory model counts the operands they keep
// (peak_memory.hpp), from this one account.
//   - a contraction (an add aggregate over a join whose kernel is bilinear with the output's
//     last dimension taken from the right operand alone: matmul, matmul_tn, matmul_nt, einsum
//     with join=mul, agg=add), folded in the output's aggregate or in a partial aggregate whose
//     partials reach it: Freivalds' check, which keeps the join's operands;
//   - any other local operator: recomputed from its operands (a fused join's, for an aggregate
//     that runs one), which it keeps; a map, filter or unfused join a chunk of tiles at a time;
//   - an output whose last operator is an exchange or a read: not verified, with the reason.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ia/plan.hpp"

namespace tra::ia {

enum class VerifyMethod { Freivalds, Recompute, None };

struct OutputCheck {
    std::string output;  // the output's name, or a carried step's
    IaNodeId node = 0;   // its producing IA node
    VerifyMethod method = VerifyMethod::None;
    std::string reason;            // None: why not
    std::optional<IaNodeId> join;  // the fused join computing the node's (partial) tuples
    std::size_t right_dim = 0;     // Freivalds: R's dimension r contracts
    // Freivalds: L's contracted dimension where K(L, v) is a matrix-vector product (matmul,
    // matmul_tn, matmul_nt, einsums of that form): both sides then take one pass over L.
    std::optional<std::size_t> left_dim;
    // Recompute: a few of the first operand's tuples at a time (a map, a filter, a join that is
    // not fused): the new tiles are compared while in cache and freed, each chunk's reusing the
    // memory of the one before, so the run reserves none for them (runtime/tile_reservation).
    bool in_chunks = false;
};

struct VerificationPlan {
    // One per output relation, in the program's order (once however often it is written), then
    // one per carried step of a loop that is not an output (its name "W1n (carried to W1)").
    std::vector<OutputCheck> checks;
    std::vector<IaNodeId> kept;  // nodes whose tuples the checks read, sorted, unique
    // Per site: the bytes the checks allocate beside what is alive after the last node (the
    // largest recomputed output's tiles on that site: an upper bound where it is recomputed in
    // chunks).
    std::vector<std::int64_t> scratch_per_site;
};

// Needs the plan's costs (NodeCost::resident) for scratch_per_site.
VerificationPlan plan_verification(const Plan& plan);

}  // namespace tra::ia
