#pragma once
// Internal to plan-file reading (plan_file.cpp, plan_file_nodes.cpp): the checks of the
// `nodes:` list, kept apart from the file-level fields so each part reads as one concern.
#include "ia/plan.hpp"
#include "workflow/yaml_fields.hpp"

namespace tra::workflow {

// Reads `f`, one element of the file's `nodes:`, as the plan's next node: its id, op, origin,
// inputs, replication or op arguments and placement are checked against the workflow and the
// nodes before it, then the plan is validated with it, so any error is this node's and is
// thrown (BadInput) at `f`'s location.
void add_plan_node(ia::Plan& plan, const Field& f);

// Makes the node computing each TRA relation its result (enforcers, partials and replications
// only move or prepare it) and checks every relation the workflow's outputs need is computed
// exactly once; `nodes` is the file's `nodes:` list, for the errors' locations.
void set_plan_results(ia::Plan& plan, const Field& nodes);

}  // namespace tra::workflow
