#pragma once
// Block sparsity through the TRA operators (docs/workflow-format.md, "Sparse tensors"). In a
// sparse-derived relation (Node::sparse) an absent key below the frontier is a tile of zeros, so
// each operator keeps exactly the tuples that can be non-zero, decided by its kernel's
// properties: a join whose kernel is zero-annihilating (mul, the matmul family) meets only
// present pairs; an aggregation whose identity is 0 (add) skips absent tiles; a zero-preserving
// transform keeps them absent. Where the zeros would take part (add of a present and an absent
// tile, max over a group with absent members, exp of an absent tile), the step is refused by the
// problem functions here: no operator makes tiles of zeros yet.
#include <optional>

#include "core/error.hpp"
#include "kernels/kernel.hpp"
#include "tra/program.hpp"

namespace tra::sparse {

// The sparse-derived relation holds fewer tiles than its frontier spans.
bool has_absent(const Node& n);

// Each: the problem with applying the step to sparse operands at `where`, or none.
std::optional<Error> join_problem(const Node& left, const Node& right,
                                  const kernels::KernelCall& kernel, const SourceLocation& where);
std::optional<Error> aggregate_problem(const Node& input, const KeyPositions& by,
                                       const kernels::KernelCall& kernel,
                                       const SourceLocation& where);
std::optional<Error> transform_problem(const Node& input, const kernels::KernelCall& kernel,
                                       const SourceLocation& where);
// A step that reads key values (filter, rekey by arithmetic): it would select among tiles of
// zeros the relation does not hold.
std::optional<Error> key_step_problem(const Node& input, const std::string& step,
                                      const SourceLocation& where);

// Marks `n` (keys and frontier set from its held keys) sparse-derived with the frontier of its
// dense equivalent; keys that fill that box are held as the box.
void finish(Node& n, const Frontier& dense);

}  // namespace tra::sparse
