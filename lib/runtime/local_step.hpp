#pragma once
// One local (non-enforcer) IA operator on the tuples one rank holds: join, aggregate (plain,
// partial, combining partials), filter, map, replication map (runtime/executor.hpp runs them in
// plan order).
#include <optional>
#include <vector>

#include "ia/plan.hpp"
#include "runtime/held_tuples.hpp"

namespace tra::runtime {

// Computes node `n`'s output on rank `me` from `held` (indexed by IA node) into `out`. `fused`
// as ia::fused_joins says: a fused join computes its aggregate's tuples, which the aggregate
// then takes over from `held` (emptying that entry).
void compute_locally(const ia::Plan& plan, const ia::IaNode& n, std::vector<HeldTuples>& held,
                     ia::Site me, const std::vector<std::optional<ia::IaNodeId>>& fused,
                     HeldTuples& out);

}  // namespace tra::runtime
