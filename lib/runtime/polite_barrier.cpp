#include "runtime/polite_barrier.hpp"

#include <chrono>
#include <thread>

namespace tra::runtime {

void polite_barrier(MPI_Comm comm) {
    MPI_Request done;
    MPI_Ibarrier(comm, &done);
    for (int finished = 0;;) {
        MPI_Test(&done, &finished, MPI_STATUS_IGNORE);
        if (finished) return;
        // 1 ms: short next to any figure calibrate times, long enough to leave the core idle.
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

}  // namespace tra::runtime
