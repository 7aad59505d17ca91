#pragma once
// The MPI library this tra was built and linked against, for `tra --version`: mixing one MPI's
// mpirun with another's library is the commonest failure on a cluster, and this line shows it.
#include <string>

namespace tra::runtime {

// MPI_Get_library_version's text, first line only ("Open MPI v4.1.4, package: ..."). It may be
// called before MPI_Init (MPI 3.0), so `tra --version` never starts MPI.
std::string mpi_library_version();

}  // namespace tra::runtime
