#pragma once
// `tra run --timeout SECONDS` (docs/runtime.md, "Failure behaviour"): a deadline for the whole
// run, checked wherever a rank of the execution waits for the others (each operator's agreement
// and its exchange). A rank still waiting when the deadline passes calls the roll: it tells
// every other rank it is there and, for a short grace, listens for the same from them. The ranks
// not heard from are the ones that did not arrive (hung in a kernel, a file system, a deadlock);
// the lowest rank that was heard from (itself included) throws an Error naming its operator and
// those ranks, which ends the job (abort_job) after rank 0 removed the temporary outputs; the
// other waiting ranks stay silent until then, so the job prints one message.
// The same roll call ends an operator that passes its own limit (--operator-timeout-factor K,
// --operator-timeout-floor F): K x the operator's predicted seconds plus F, counted from the
// moment this rank began the operator (set_place). Ranks begin an operator within moments of
// each other (the previous operator ends in an agreement), so their roll calls meet.
// With neither a timeout nor operator limits nothing changes: waits stay the blocking MPI calls.
#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

#include "runtime/run_backstop.hpp"

namespace tra::runtime {

// The limit of an operator the time model predicts `predicted_seconds` for: `factor` x that plus
// `floor_seconds` (no limit when factor is 0, or the sum is 0). The floor keeps operators predicted
// to take microseconds from failing on a slow or oversubscribed machine, where the model is off
// most.
PlaceLimit operator_limit(double factor, double floor_seconds, double predicted_seconds);

class RunWatchdog {
  public:
    // Off.
    RunWatchdog() = default;
    // On when timeout_seconds > 0 (the run's deadline is `started`, MPI_Wtime on this rank at the
    // start of the run, plus the timeout) or `operator_limits` (set_place gives each operator its
    // own). Collective (duplicates `comm` for the roll call). `backstop` (may be null) learns
    // every place, and stands down when the roll call ends the run.
    RunWatchdog(MPI_Comm comm, double started, double timeout_seconds, bool operator_limits,
                RunBackstop* backstop = nullptr);
    RunWatchdog(const RunWatchdog&) = delete;
    RunWatchdog& operator=(const RunWatchdog&) = delete;
    ~RunWatchdog();

    bool on() const { return on_; }

    // What this rank waits in from now on, for the message: "operator #3 local_join"; with a
    // limit (seconds > 0) a wait there also ends the run once that long has passed from now.
    void set_place(std::string place, PlaceLimit limit = {});

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
    // The place's own limit: MPI_Wtime deadline (0: none), its seconds and where they came from.
    double place_deadline_ = 0;
    PlaceLimit limit_;
    RunBackstop* backstop_ = nullptr;
};

}  // namespace tra::runtime
