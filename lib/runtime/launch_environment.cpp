#include "runtime/launch_environment.hpp"

#include <cstdlib>
#include <string>

namespace tra::runtime {

std::optional<int> launcher_world_size() {
    // OpenMPI's mpirun, MPICH/Hydra's PMI, PMIx launchers, and srun job steps in that order.
    for (const char* name :
         {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_STEP_NUM_TASKS"}) {
        if (const char* v = std::getenv(name)) {
            try {
                return std::stoi(v);
            } catch (...) {
            }
        }
    }
    return std::nullopt;
}

}  // namespace tra::runtime
