#pragma once
// How long each IA node's output lives while a plan runs in node order: until its last reader,
// or to the end for the program's results. The peak memory model, the runtime (which frees an
// output after its last reader) and join fusion share this one definition.
#include <vector>

#include "ia/plan.hpp"

namespace tra::ia {

// In a loop (Program::repeat), whether input node `n` is read once, in the first iteration, and
// kept: an input neither carried nor read a slice per iteration (InputSource::slice).
bool read_once(const Plan& plan, const IaNode& n);

// Per node: the id of the last node reading its output (its own id when none does), or
// plan.size() when the output is a result of the program, or, in a loop, an input read once or a
// carried step's result.
std::vector<IaNodeId> last_uses(const Plan& plan);

}  // namespace tra::ia
