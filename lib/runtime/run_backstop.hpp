#pragma once
// `tra run --timeout SECONDS` and the per-operator limits where no rank waits for another
// (docs/runtime.md, "Failure behaviour"): a run on one rank, or every rank busy (computing,
// reading, writing, planning) past the deadline or past its operator's limit. RunWatchdog's roll
// call ends a run whose ranks wait for a missing one, but it runs only in those waits; this is
// the backstop for the rest. A timer thread per rank wakes a few seconds after the run's deadline
// or the current place's limit, whichever comes first (rank 0 first, the others later, so that
// the job prints one message and the roll call, when it can, speaks first), prints the one error
// line naming where this rank is, removes the temporary output files it was given and exits 1 at
// once (the main thread is stuck, so nothing else is cleaned up). The launcher then ends the
// other ranks. The thread touches no MPI.
#include <memory>
#include <string>
#include <vector>

namespace tra::runtime {

// How long a place may take, and where that came from, for the message.
struct PlaceLimit {
    // factor x predicted + floor (operator_limit); all 0: no limit. Kept as numbers and written
    // out only in the message: a run sets a limit per operator, and formatting it each time was
    // a tenth of a tiny-tile loop's time.
    double factor = 0, predicted = 0, floor = 0;
    double seconds() const { return factor * predicted + floor; }  // 0: no limit
    std::string reason() const;  // "20 x predicted 0.5 s + 60 s floor"
};

class RunBackstop {
  public:
    // Off.
    RunBackstop();
    // On when timeout_seconds > 0 (the deadline is `remaining_seconds` from now) or when
    // `place_limits` (set_place's limits count).
    RunBackstop(int rank, int size, double timeout_seconds, double remaining_seconds,
                bool place_limits = false);
    RunBackstop(const RunBackstop&) = delete;
    RunBackstop& operator=(const RunBackstop&) = delete;
    ~RunBackstop();  // stops the timer

    // Where this rank is from now on, for the message: "planning", "operator #3 local_join";
    // with a limit (seconds > 0) the timer also ends the run a few seconds after that long.
    void set_place(const std::string& place, const PlaceLimit& limit = {});
    // Files to remove when the timer ends the run (rank 0's temporary outputs).
    void remove_on_expiry(const std::vector<std::string>& paths);
    // The roll call is ending the run (RunWatchdog): the timer stays silent.
    void stand_down();

  private:
    struct Timer;
    std::unique_ptr<Timer> timer_;
};

}  // namespace tra::runtime
