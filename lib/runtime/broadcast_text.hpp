#pragma once
// Rank 0's text on every rank: how `tra run` hands its chosen plan (plan-file text) to the other
// ranks, which decode it instead of planning again.
#include <mpi.h>

#include <string>

namespace tra::runtime {

// Collective: afterwards `text` on every rank of `comm` equals rank 0's. Texts of any length
// travel in pieces of at most INT_MAX bytes (MPI counts are ints).
void broadcast_text(std::string& text, MPI_Comm comm);

}  // namespace tra::runtime
