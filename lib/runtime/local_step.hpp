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
// then takes over from `held` (emptying that entry). `input_spent`: no operator reads the
// input of a one-input `n` after it (ia::last_uses), so the tiles it passes on unchanged (a
// rekey's, a filter's, a fill's, a group's only tile or partial) are moved out of `held`, not
// copied.
void compute_locally(const ia::Plan& plan, const ia::IaNode& n, std::vector<HeldTuples>& held,
                     ia::Site me, const std::vector<std::optional<ia::IaNodeId>>& fused,
                     HeldTuples& out, bool input_spent = false);

}  // namespace tra::runtime
