#pragma once
// What the process learns from its launcher (mpirun, mpiexec, srun) before MPI starts: enough to
// refuse single-process modes under a multi-rank launch without initializing MPI.
#include <optional>

namespace tra::runtime {

// The number of ranks the launcher started, from its environment (OpenMPI, PMI, PMIx, Slurm
// job steps); nullopt when the process was started without a launcher.
std::optional<int> launcher_world_size();

}  // namespace tra::runtime
