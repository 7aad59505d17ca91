// The baselines' clock: a product run `repeats` times, all ranks starting together after a
// barrier, each repeat timed by its slowest rank (what a user waits for).
#pragma once

#include <mpi.h>

#include <string>

namespace tra::bench {

// Returns the seconds of every repeat, comma-separated, on rank 0 (JSON list elements).
template <typename Product>
std::string slowest_rank_times(int repeats, Product product) {
    std::string times;
    for (int r = 0; r < repeats; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        product();
        double mine = MPI_Wtime() - t0, slowest = 0;
        MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        times += (r ? ", " : "") + std::to_string(slowest);
    }
    return times;
}

}  // namespace tra::bench
