#pragma once
// `tra run --timeout SECONDS` (docs/runtime.md, "Failure behaviour"): a deadline for the whole
// run, checked wherever a rank of the execution waits for the others (each operator's agreement
// and its exchange). A rank still waiting when the deadline passes calls the roll: it tells
// every other rank it is there and, for a short grace, listens for the same from them. The ranks
// not heard from are the ones that did not arrive (hung in a kernel, a file system, a deadlock);
// the lowest rank that was heard from (itself included) throws an Error naming its operator and
// those ranks, which ends the job (abort_job) after rank 0 removed the temporary outputs; the
// other waiting ranks stay silent until then, so the job prints one message.
// Without a timeout nothing changes: waits stay the blocking MPI calls.
#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

namespace tra::runtime {

class RunWatchdog {
  public:
    // Off.
    RunWatchdog() = default;
    // On when timeout_seconds > 0: the deadline is `started` (MPI_Wtime on this rank at the start
    // of the run) plus the timeout. Collective (duplicates `comm` for the roll call).
    RunWatchdog(MPI_Comm comm, double started, double timeout_seconds);
    RunWatchdog(const RunWatchdog&) = delete;
    RunWatchdog& operator=(const RunWatchdog&) = delete;
    ~RunWatchdog();

    bool on() const { return on_; }

    // What this rank waits in, for the message: "operator #3 local_join".
    void set_place(std::string place) { place_ = std::move(place); }

    // Waits for every request like MPI_Waitall; past the deadline, calls the roll (never returns
    // then). Returns MPI_Waitall's code when off.
    int wait_all(std::vector<MPI_Request>& requests, std::vector<MPI_Status>& statuses) const;

  private:
    [[noreturn]] void expire() const;

    bool on_ = false;
    mutable bool expired_ = false;  // the roll's sends may be pending: the copy is not freed
    MPI_Comm roll_ = MPI_COMM_NULL;
    int rank_ = 0, size_ = 1;
    double deadline_ = 0, timeout_ = 0;
    std::string place_ = "the run";
};

}  // namespace tra::runtime
