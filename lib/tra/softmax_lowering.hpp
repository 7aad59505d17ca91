#pragma once
// softmax and log_softmax along one dimension of a plain tensor, lowered to TRA through einsum
// steps (einsum_lowering.hpp), so the planner distributes them like any contraction, whatever the
// tiling: the dimension may be cut into several tiles, whose maxima and sums are then
// aggregations across tiles. For the operand's labels L and L' = L without the dimension's label
// (for dim 1 of a rank-3 tensor S: "abc" and "ac"), step NAME becomes
//
//   NAME.max   = einsum "L->L'" of S, agg max
//   NAME.shift = einsum "L,L'->L" of S, NAME.max, join sub    (every element <= 0)
//   NAME.exp   = transform exp of NAME.shift                   (so no exp overflows)
//   NAME.sum   = einsum "L->L'" of NAME.exp, agg add           (>= 1: it holds exp(0))
//   softmax:     NAME = einsum "L,L'->L" of NAME.exp, NAME.sum, join div
//   log_softmax: NAME.log = transform log of NAME.sum
//                NAME = einsum "L,L'->L" of NAME.shift, NAME.log, join sub
//
// The einsums lower further (NAME.max.tiles, ...). Workflow names cannot hold a dot, so these
// never clash with a user's.
//
// A padded dimension (docs/workflow-format.md, "Padding": its last tile reaches past its extent
// and holds zeros there) would put exp(0 - max) into every sum. Where the dimension is padded,
// the operand is first filled with -inf past the extent (NAME.mask = transform fill_padding of
// S, one pass), and NAME.max and NAME.shift read it: max ignores the padding, exp makes it 0,
// so the sums are exact and softmax holds zeros there. log_softmax, whose shift - log(sum)
// would hold -inf there, is computed from S itself instead, in as many passes:
//
//   NAME.offset = einsum "L',L'->L'" of NAME.max, NAME.log, join add
//   NAME        = einsum "L,L'->L" of S, NAME.offset, join sub    (finite in the padding)
//
// Its error is then a few ulps of the maximum, as the inputs themselves (backward stable),
// where (x - max) - log(sum) is also that precise relative to results near 0.
#include <cstdint>
#include <optional>
#include <string>

#include "tra/program_builder.hpp"

namespace tra {

// `input` is written in field `softmax` (or `log_softmax`) of `src`, `dim` in field `dim`; a
// dim out of range or an operand that is not a plain tensor is an Error located there, before
// any node is added.
// `extent`: the dimension's extent, where it may be padded.
NodeId lower_softmax(ProgramBuilder& builder, const std::string& name, const std::string& input,
                     std::int64_t dim, bool log, const StepSource& src,
                     std::optional<std::int64_t> extent = std::nullopt);

}  // namespace tra
