#pragma once
// Waits in which a rank sleeps instead of polling. MPI implementations busy-wait; on a host with
// more ranks than cores (or where one rank runs threads, as rank 0's planner does) the waiting
// ranks take the cores of the ones still working. These waits are for steps where one rank
// works alone for long (planning, the --check reference) or is being timed (`tra calibrate`);
// they add up to a millisecond to the wait, so exchanges keep MPI's own waits.
#include <mpi.h>

namespace tra::runtime {

// Returns once `request` completed: tests it every millisecond and sleeps in between.
void wait_politely(MPI_Request& request);

// Collective over `comm`: returns once every rank has called it, waiting politely.
void polite_barrier(MPI_Comm comm);

}  // namespace tra::runtime
