#pragma once
// Re-tiling before an einsum: the operands of one einsum may tile a label differently (within one
// operand too, for a repeated label) when the whole extents agree and every tile count divides
// the finest count of that label. Each coarser dimension is then re-cut to the finest tiling in
// two ordinary TRA steps, both local (maps: no tile moves between sites):
//   1. a `tile` per coarser dimension d splits each tile into m = finest / count pieces along d,
//      appending the piece to the key (tile t's piece p holds elements t*b + p*b/m ...),
//   2. one `rekey` folds each appended position into its dimension's: k_d * m + piece, which is
//      exactly the tile index of that piece in the finer grid.
// Followers (EinsumStep::followers, set under `tile: auto` for operands computed by a step) take
// instead the finest cut among the other operands where one carries the label, and are merged
// where they are cut more finely (m = count / finest):
//   1. one `rekey` groups every m pieces: k_d / m in its dimension, k_d % m appended,
//   2. a `concat` per merged dimension joins the appended pieces along d (a shuffle gathers
//      them on one site first).
// The result is a plain tensor whose every label is tiled alike across the einsum, so the
// diagonals (einsum_diagonal.hpp) and the joins (einsum_lowering.hpp) see one grid per label.
// A block-sparse operand is filled first by the rekey (it reads key values: sparse_rules.hpp),
// so its absent tiles become tiles of zeros: exact, but dense from there on.
#include <string>

#include "tra/program_builder.hpp"

namespace tra {

// `step` with each operand that tiles some label more coarsely than the finest tiling of that
// label in the step replaced by its re-tiled relation, named "D.retile2" for operand 2 of step D
// (counted from 1, as "D.diag2"), after "D.retile2.tile1" (the `tile` of its dimension 1) and so
// on; a merged operand's rekey is "D.retile2.group", its concats "D.retile2.concat1" (dimension
// 1) and so on, the last one "D.retile2". A step that needs no re-tiling, or that the lowering
// refuses anyway (a malformed spec, an operand count that does not match `inputs`, an operand that
// is not a plain tensor of its labels' rank), comes back unchanged and adds nothing. Throws Error
// located at `inputs`, before adding any step, when a label spans different extents or has tile
// counts that do not divide each other (a follower's either way), naming the label and both tilings
// (tiles x tile size).
EinsumStep retile_operands(ProgramBuilder& builder, const std::string& name, const EinsumStep& step,
                           const StepSource& src);

}  // namespace tra
