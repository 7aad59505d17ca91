#pragma once
// Einstein notation to TRA, after Yuan's thesis ("Distributed Machine Learning Scale Out with
// Algorithms and Systems", section 3.1.3) with the gaps of its sketch filled (docs/
// workflow-format.md, "einsum"): operands are joined pairwise, in the order of fewest flops
// (contraction_order.hpp), on the labels they share; each join applies a tile-level einsum
// kernel; labels no remaining operand or the output needs are summed out by an aggregation with
// the agg op -- early only when the join op distributes over the agg op (a property in the kernel
// registry), otherwise after the last join, and then operands are joined left to right; a rekey
// orders the key like the output when no aggregation does it already.
//
// Operands are plain tensors: key position d tiles array dimension d, and the relation carries
// one label per position. Labels are single lowercase letters; "ik,kj" without "->" means the
// labels that appear once, in alphabetical order (as in numpy).
// Operands may tile a label differently when the counts divide each other: the coarser is first
// re-cut to the finer tiling (einsum_retile.hpp). A label repeated within one operand ("ii->i",
// traces) then reduces that operand to its diagonal (einsum_diagonal.hpp); the output never
// repeats a label.
#include <optional>
#include <string>
#include <vector>

#include "tra/program_builder.hpp"

namespace tra {

struct EinsumSpec {
    std::vector<std::string> operands;  // one string of labels per operand
    std::string output;

    // Throws Error (no location) for malformed specs.
    static EinsumSpec parse(const std::string& text);
    std::string str() const;  // "ik,kj->ij"
};

// The spec of `step` when it parses and names one operand per input, else nullopt: the passes
// that run before the lowering (diagonals, re-tiling) leave such a step to it, which reports
// the problem located at `einsum`.
std::optional<EinsumSpec> operand_spec(const EinsumStep& step);

NodeId lower_einsum(ProgramBuilder& builder, const std::string& name, const EinsumStep& step,
                    const StepSource& src);

}  // namespace tra
