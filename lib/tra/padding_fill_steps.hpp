#pragma once
// Padding that must hold an aggregation's identity (docs/workflow-format.md, "Padding"): a
// padded tile holds zeros past its tensor's extent, which a sum folds in exactly but a max, a
// min or a product does not (max(x, 0) is not x). Before such a fold, and before a softmax's
// max, the padding of the dimensions folded is set to the identity (-inf for max, +inf for min,
// 1 for mul) by transform steps with the kernel fill_padding. The tracker
// (tiling_classes.hpp) decides where a dimension may be padded on that promise; the workflow
// loader and the softmax lowering insert the steps where the chosen tiling pads.
#include <cstdint>
#include <string>
#include <vector>

#include "tra/program_builder.hpp"

namespace tra {

// Dimension `dim` of a tensor, whose tiles may reach past `extent` (its real size).
struct PaddedDim {
    std::size_t dim = 0;
    std::int64_t extent = 0;
};

// `input` with `value` past the extent along each of `dims` that its tiles really pad (frontier x
// tile bound > extent): one transform step per such dimension, named NAME.mask, NAME.mask2, ...;
// `input` itself when none is padded. `input` must be a plain tensor (key position d tiles
// dimension d), as fill_padding reads its tile's position.
std::string fill_padding_steps(ProgramBuilder& builder, const std::string& name,
                               const std::string& input, const std::vector<PaddedDim>& dims,
                               double value, const StepSource& src);

}  // namespace tra
