#pragma once
// Repeated labels within one einsum operand ("ii->i", "iij,jk->ik", the trace "ii->"), lowered
// the way the TRA thesis takes a diagonal (plans/examples/diag.yaml): for an operand whose label
// sits at key positions p and q,
//   1. a filter keeps the tuples with k_p == k_q (the tiles on the key grid's diagonal),
//   2. a transform with the `diagonal` tile kernel takes each kept tile's diagonal over the
//      tile dimensions p and q,
//   3. a rekey drops the duplicate key position q.
// The tile at k_p == k_q == t holds elements (t*b + x, t*b + y); its diagonal x == y is exactly
// the tensor's diagonal there, because both positions are tiled alike (same frontier and bound:
// einsum_retile.hpp re-tiles a coarser one first, and it is checked here). The tiles off the key
// diagonal hold no diagonal element, so the filter loses nothing. The result is a plain tensor
// with distinct labels that the ordinary lowering joins and sums: a trace is a diagonal followed
// by the usual sum. All three are ordinary TRA steps, costed like any other.
#include <string>

#include "tra/program_builder.hpp"

namespace tra {

// `step` with each operand that repeats a label replaced by its diagonal relation, named
// "D.diag2" for operand 2 of step D (after "D.diag2.keep", the filter, and "D.diag2.tiles", the
// transform), and the spec rewritten with distinct labels and an explicit output. A step that
// repeats no label, or that the ordinary lowering refuses anyway (a malformed spec, an operand
// count that does not match `inputs`), comes back unchanged. Throws Error located at `inputs`
// when an operand is not a plain tensor of the spec's rank or tiles the positions of one label
// differently.
EinsumStep lower_diagonals(ProgramBuilder& builder, const std::string& name, const EinsumStep& step,
                           const StepSource& src);

}  // namespace tra
