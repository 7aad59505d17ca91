#pragma once
// Shared by the C++ MPI tests: this rank, the ranks, and rank 0's value on every rank.
#include <mpi.h>

#include <string>

namespace tra::testing {

inline int rank_in_world() {
    int me = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    return me;
}

inline int world_size() {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

// Rank 0's string on every rank (a temporary folder only rank 0 made).
inline std::string from_rank0(std::string s) {
    int n = static_cast<int>(s.size());
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    s.resize(static_cast<std::size_t>(n));
    MPI_Bcast(s.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD);
    return s;
}

}  // namespace tra::testing
