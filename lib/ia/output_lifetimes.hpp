#pragma once
// When each IA node's output exists as tiles while a plan runs in node order: from its node to
// its last reader (last_uses.hpp), except around a fused join (fused_joins.hpp): the join's
// products never exist as tiles, and its aggregate's sums exist from the join on, since the join
// computes them. The executor allocates and frees tiles exactly so; the peak memory model
// (peak_memory.hpp) and the runtime's tile reservation (runtime/tile_reservation.hpp) count them
// from this one account.
#include <optional>
#include <vector>

#include "ia/plan.hpp"

namespace tra::ia {

struct Lifetime {
    IaNodeId first = 0;  // the node that allocates the tiles
    IaNodeId last = 0;   // the last node that runs while they exist (plan.size(): to the end)
    bool alive_at(IaNodeId t) const { return first <= t && t <= last; }
};

// Per node; nullopt for a fused join, whose output never exists as tiles. The `kept` nodes'
// outputs live to the end (`tra run --verify`'s checks read them after the last node:
// verification_plan.hpp).
std::vector<std::optional<Lifetime>> output_lifetimes(const Plan& plan,
                                                      const std::vector<IaNodeId>& kept = {});

}  // namespace tra::ia
