#pragma once
// Rank 0's text on every rank: how `tra run` hands its chosen plan (plan-file text) to the other
// ranks, which decode it instead of planning again; and rank 0's numbers (the plan's predicted
// seconds per operator, which only rank 0's time model computes and every rank's per-operator
// limit needs).
#include <mpi.h>

#include <string>
#include <vector>

namespace tra::runtime {

// Collective: afterwards `text` on every rank of `comm` equals rank 0's. Texts of any length
// travel in pieces of at most INT_MAX bytes (MPI counts are ints).
void broadcast_text(std::string& text, MPI_Comm comm);

// Collective: afterwards `values` on every rank of `comm` equals rank 0's (count and values).
void broadcast_numbers(std::vector<double>& values, MPI_Comm comm);

}  // namespace tra::runtime
