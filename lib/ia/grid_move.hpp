#pragma once
// The `grid` enforcer: moving a relation onto a 2-D process grid (Placement::Kind::Grid),
// possibly replicated along one grid axis. SUMMA is a join of A(i,k) replicated along grid rows
// with B(k,j) replicated along grid columns (docs/cost-model.md, "Local joins"); this file holds
// what the IA layer needs to know about the move itself: which grid a run of S sites uses, what
// makes a grid node valid, and its cost in the paper's model. The exact cost needs nothing new:
// exact_transfer moves between any two placements.
#include <cstddef>
#include <optional>
#include <string>

#include "ia/placement.hpp"

namespace tra::ia {

struct GridShape {
    int rows = 1, cols = 1;
};

// The process grid for S sites: rows = the largest divisor of S that is <= sqrt(S), cols =
// S / rows. Every site gets a cell (a grid with idle sites computes on fewer of them), and among
// the exact factorizations this one is the most square, which minimizes SUMMA's traffic
// (cols - 1)|A| + (rows - 1)|B| for |A| = |B|. S = 2 -> 1x2, 3 -> 1x3, 4 -> 2x2, 6 -> 2x3.
// It is ScaLAPACK's usual BLACS choice too. S >= 1.
GridShape grid_shape(int sites);

// Why `target` cannot be the output of a grid node on a relation whose keys have `key_arity`
// positions, or nullopt when it can: it must be a Grid reading key positions that exist.
// (pr * pc <= S is validate()'s general check on every placement.)
std::optional<std::string> grid_move_problem(const Placement& target, std::size_t key_arity);

// Copies of each tuple the grid placement keeps: cols when replicated along rows, rows when
// replicated along columns, otherwise 1.
int grid_copies(const Placement& target);

// The paper's model has no grid enforcer; we charge it like a shuffle that delivers every copy:
// f floats per copy, f * grid_copies(target), with no credit for copies already in place (the
// paper never credits placement). For SUMMA on pr x pc this is pc|A| + pr|B|.
double paper_grid_cost(double floats, const Placement& target);

}  // namespace tra::ia
