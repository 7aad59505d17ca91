#pragma once
// The initial compilation TRA -> IA: the TRA paper's Table 1 (thesis Table 3.1), one IA
// sub-plan per needed TRA node, in program order:
//
//   Σ_(gb,op)(R)            local_aggregate(shuffle[gb](R))
//   ⋈_(jl,jr,op)(Rl, Rr)    local_join(bcast(Rl), Rr)
//   REKEY / λ / TILE (R)    map(R)
//   σ_(b)(R)                local_filter(R)
//   CONCAT_(kd,ad)(R)       local_aggregate_concat(shuffle[<kd>^c](R))
//
// One deviation, so the initial plan is always valid: when the right operand of a join is in an
// Unknown placement (it follows a rekey), Table 1's plan would join tuples that never meet, so
// the right operand is first shuffled on its join keys (bcast(Rl) is All, which meets any Part).
// Every node is tagged with the rule "compile". Rewrites and search are not done here.
// Lives in lib/ia until lib/optimizer has its CMake target; then it moves to
// lib/optimizer/compile.*.
#include <map>

#include "ia/plan.hpp"

namespace tra::ia {

struct CompileOptions {
    // Where each TRA input starts; inputs not listed start in Part[0] (Part[] for key arity 0).
    // Any known placement is free: every site reads or generates its own tuples in place.
    std::map<NodeId, Placement> input_placements;
};

// Compiles every node with `needed == true`. `program` must outlive the plan. Throws Error
// (BadInput) for an Unknown input placement or one on a node that is not a needed input, and
// for a plan that fails validate() (which cannot happen for Part/All inputs).
Plan compile_initial(const Program& program, int sites, const CompileOptions& options = {});

}  // namespace tra::ia
