#pragma once
// What a partial plan of the beam search (search.hpp) leaves to the nodes after it. Two partial
// plans that hold the same IA nodes of every relation still to be read give every completion
// the same later costs, so the beam ranks only the cheaper of them among its first choices:
// otherwise partial plans that differ only in how an already consumed relation was made
// (strategies that cost the same) fill the beam, and choices whose price shows up only later
// fall out of it.
#include <cstdint>
#include <optional>
#include <vector>

#include "ia/plan.hpp"
#include "tra/program.hpp"

namespace tra::optimizer {

// Relations still to be read after a step of the search.
class LiveRelations {
  public:
    LiveRelations() = default;
    // `ids` ascending, each below `node_count` (the program's nodes).
    LiveRelations(std::vector<NodeId> ids, std::size_t node_count);

    const std::vector<NodeId>& ids() const { return ids_; }
    bool contains(NodeId id) const { return id < mask_.size() && mask_[id]; }

  private:
    std::vector<NodeId> ids_;
    std::vector<char> mask_;
};

// For each step i of `order` (the needed nodes in the order the search places them): the nodes
// among order[0..i] whose relations a node after step i reads, or that the program outputs. None
// for a `repeat:` program, whose carried relations the next iteration reads again: its partial
// plans are never found alike.
std::vector<LiveRelations> live_after_each_step(const Program& program,
                                                const std::vector<NodeId>& order);

// A hash of the IA nodes of `live` relations in `plan` (each node's op, origin, placement and
// whether it is the relation's result, with the same of its inputs), summed so that the order
// the nodes were added in does not matter: equal for partial plans that hold the same such
// nodes. nullopt when nothing is live. Two different frontiers hash alike only by a 64-bit
// collision, which would merely rank one partial plan later in the beam.
std::optional<std::uint64_t> frontier_signature(const ia::Plan& plan, const LiveRelations& live);

}  // namespace tra::optimizer
