#pragma once
// How the ranks of a run agree that a step failed (docs/runtime.md, "Failure behaviour"). Every
// rank runs the step, then all ranks learn, in one MPI_Allreduce, the lowest rank that failed;
// that rank alone prints its message ("tra: error (rank R): cause") and every rank learns its
// exit code, so the job ends everywhere with one message and no rank waits for another.
// A failure inside an exchange (peers already blocked on this rank) cannot be agreed on; those
// end the job with MPI_Abort (abort_job).
//
// Work that may fail without blocking any other rank (an exchange's bookkeeping after its
// messages arrived) can be deferred: it runs at once, and its failure is agreed on at the next
// step, which then skips its own work on this rank. That saves an agreement (an MPI_Allreduce,
// microseconds on one host and more across hosts) per exchange, and the failure still ends
// every rank with one message before any later exchange or output write begins. As a rank with
// a deferred failure skips the next step's work, work that follows deferred work in the next
// step must not call a collective (in the runtime only the output writers' steps do, and each
// follows a step of local work).
#include <mpi.h>

#include <exception>
#include <functional>
#include <string>

#include "runtime/run_watchdog.hpp"

namespace tra::runtime {

// Thrown on every rank once the ranks agreed that a step failed; the message is already printed.
struct AgreedFailure {
    int exit_code = 1;
};

// How a rank waits for the others at an agreement: polling, as MPI does (a step every rank
// works in), or sleeping between tests (polite_barrier.hpp: a step one rank works in alone for
// long, such as rank 0 planning, whose threads the waiting ranks would otherwise slow).
enum class Waiting { Polling, Sleeping };

class RankAgreement {
  public:
    explicit RankAgreement(MPI_Comm comm);

    // Runs `step` on this rank (catching tra::Error and std::exception), then agrees with the
    // other ranks. Returns normally when every rank succeeded; otherwise throws AgreedFailure
    // on every rank, after the lowest failing rank printed its message. Collective.
    void step(const std::function<void()>& work, Waiting waiting = Waiting::Polling) const;

    // Runs `work` on this rank now (catching as step does); a failure is agreed on at the next
    // step or settle, with the first deferred failure's message. Not collective.
    void defer(const std::function<void()>& work) const;

    // Agrees on a failure this rank already caught (code 0: none), or else on a deferred one.
    // Collective.
    void settle(int code, const std::string& message, Waiting waiting = Waiting::Polling) const;

    // Rank 0's `code` on every rank (the exit code of a run whose end rank 0 decides, after
    // working alone: the others wait sleeping). Collective.
    int rank0_code(int code) const;

    // --timeout: agreements wait through `watchdog` (run_watchdog.hpp), which ends the run when
    // the deadline passes before every rank arrived.
    void watch(const RunWatchdog* watchdog) { watchdog_ = watchdog; }

    int rank() const { return rank_; }
    int size() const { return size_; }

  private:
    MPI_Comm comm_;
    int rank_ = 0, size_ = 1;
    const RunWatchdog* watchdog_ = nullptr;
    // A deferred failure not yet agreed on (code 0: none).
    mutable int deferred_code_ = 0;
    mutable std::string deferred_message_;
};

// "tra: error (rank R): message" (no rank on one site), the one line a failure prints.
std::string error_line(int rank, int size, const std::string& message);

// Prints the error line and ends every rank of the job now (MPI_Abort): for failures other ranks
// cannot be told about in an orderly way (this rank failed while peers wait on it).
[[noreturn]] void abort_job(MPI_Comm comm, const std::string& message, int code);

}  // namespace tra::runtime
