#include "runtime/polite_barrier.hpp"

#include <chrono>
#include <thread>

namespace tra::runtime {

void wait_politely(MPI_Request& request) {
    for (int finished = 0;;) {
        MPI_Test(&request, &finished, MPI_STATUS_IGNORE);
        if (finished) return;
        // 1 ms: short next to the work waited for, long enough to leave the core idle.
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

void polite_barrier(MPI_Comm comm) {
    MPI_Request done;
    MPI_Ibarrier(comm, &done);
    wait_politely(done);
}

}  // namespace tra::runtime
