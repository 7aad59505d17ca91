#pragma once
// How long each IA node's output lives while a plan runs in node order: until its last reader,
// or to the end for the program's results. The peak memory model, the runtime (which frees an
// output after its last reader) and join fusion share this one definition.
#include <vector>

#include "ia/plan.hpp"

namespace tra::ia {

// Per node: the id of the last node reading its output (its own id when none does), or
// plan.size() when the output is a result of the program, or, in a loop, an input it does not
// carry or a carried step's result.
std::vector<IaNodeId> last_uses(const Plan& plan);

}  // namespace tra::ia
