#pragma once
// Block sparsity through the TRA operators (docs/workflow-format.md, "Sparse tensors"). In a
// sparse-derived relation (Node::sparse) an absent key below the frontier is a tile of zeros, so
// each operator keeps exactly the tuples that can be non-zero, decided by its kernel's
// properties: a join whose kernel is zero-annihilating (mul, the matmul family) meets only
// present pairs; an aggregation whose identity is 0 (add) skips absent tiles; a zero-preserving
// transform keeps them absent. Where zeros take part (add of a present and an absent tile, max
// over a group with absent members, exp of an absent tile, a filter), the ProgramBuilder first
// fills the operand (FillOp) with tiles of zeros at the keys returned here: those the step
// reads, no more.
#include <optional>

#include "core/key_set.hpp"
#include "kernels/kernel.hpp"
#include "tra/program.hpp"

namespace tra::sparse {

// The sparse-derived relation holds fewer tiles than its frontier spans.
bool has_absent(const Node& n);

// Each: the keys `operand` must hold (its own, and tiles of zeros) for the step, or nullopt
// when its own suffice. The callers bound the operand's box by the tuple limit first: the keys
// are enumerated from it.
//
// A join side meets the other's present tiles; a kernel that makes zeros of zeros (add, sub)
// needs only the side's keys that match a present tile of the other, others the whole box.
std::optional<KeySet> join_fill(const Node& side, const KeyPositions& side_keys, const Node& other,
                                const KeyPositions& other_keys, const kernels::KernelCall& kernel);
// Groups with a present member are completed; with a kernel that does not keep zeros zeros,
// every group is.
std::optional<KeySet> aggregate_fill(const Node& input, const KeyPositions& by,
                                     const kernels::KernelCall& kernel);
std::optional<KeySet> transform_fill(const Node& input, const kernels::KernelCall& kernel);
// A step that reads key values (filter, rekey by arithmetic) sees the whole box.
std::optional<KeySet> key_step_fill(const Node& input);
// A concat group with a present piece gets its absent pieces.
std::optional<KeySet> concat_fill(const Node& input, std::size_t key_dim);

// Marks `n` (keys and frontier set from its held keys) sparse-derived with the frontier of its
// dense equivalent; keys that fill that box are held as the box.
void finish(Node& n, const Frontier& dense);

}  // namespace tra::sparse
