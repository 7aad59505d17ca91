#pragma once
// The fills a fold needs before it mixes padded entries with real ones (docs/workflow-format.md,
// "Padding"): the tracker (tiling_classes.hpp) made a class paddable on the promise that an
// aggregate, an einsum or a matrix-product join finds an aggregation's identity, or zeros in one
// factor of a product, in the padding it folds; here the loader keeps that promise for the
// tiling it builds.
#include <string>
#include <vector>

#include "tra/program_builder.hpp"
#include "tra/tiling_classes.hpp"

namespace tra {

// `operands` of step `name` with each fill of classes.fills_before(name) applied where the
// chosen tiling really pads and the padding does not already hold the value: that operand
// replaced by its filled relation (padding_fill_steps.hpp), named NAME.mask, NAME.mask2, ... for
// a step of one operand and NAME.operandN.mask, ... for operand N (from 1) of several. Operands
// the builder does not know are left for the step itself to report.
std::vector<std::string> filled_operands(ProgramBuilder& builder, const TilingClasses& classes,
                                         const std::string& name, std::vector<std::string> operands,
                                         const StepSource& src);

}  // namespace tra
