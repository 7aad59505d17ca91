#pragma once
// Between two iterations of a loop (Program::repeat, docs/workflow-format.md "Loops"), every
// carried input takes its step's value: the tuples of the step's result move from where they are
// to where the input's node starts (its placement), by the transfer contract of transfer.hpp like
// every exchange, so the bytes are exact (zero when the placements agree). The costs, the peak
// memory model and the runtime all take the moves from here.
#include <cstdint>
#include <vector>

#include "ia/plan.hpp"

namespace tra::ia {

struct CarryMove {
    IaNodeId input = 0;  // the carried input's node
    IaNodeId step = 0;   // the node holding the step's result (the value carried)
    Transfer transfer;   // the move, exact
};

// The moves of one carry, in Program::repeat's carry order: none for a program without a loop,
// and none for a carry whose step has no result yet (a partial plan). Needs annotated costs
// (NodeCost::sites of the step's result).
std::vector<CarryMove> carry_moves(const Plan& plan);

// Whether move `j` of `moves` copies the tuples its sites keep (runtime/loop_iteration.cpp)
// rather than moving them out of its step's result: where another move takes the same step, or
// the step is an input read once (kept for the next iteration). The time model charges the copy
// (carry_seconds) where the runtime makes it.
bool copies_kept_tuples(const Plan& plan, const std::vector<CarryMove>& moves, std::size_t j);

// What a carry needs per site beside what is alive at the end of an iteration: every move's
// exchange buffers and the carried inputs' new tiles, held together (the runtime installs the
// new values only once every move is done, since a step may read a carried input).
std::vector<std::int64_t> carry_scratch(const Plan& plan, const std::vector<CarryMove>& moves);

}  // namespace tra::ia
