#pragma once
// A barrier whose waiting ranks sleep instead of polling. MPI implementations busy-wait in
// collectives; on a host with more ranks than cores the spinning ranks take the cores of the
// ones still working, which matters where those are being timed (`tra calibrate`).
#include <mpi.h>

namespace tra::runtime {

// Collective over `comm`: returns once every rank has called it. Until then this rank tests the
// barrier every millisecond and sleeps in between.
void polite_barrier(MPI_Comm comm);

}  // namespace tra::runtime
