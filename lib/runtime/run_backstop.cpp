#include "runtime/run_backstop.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "runtime/rank_agreement.hpp"

namespace tra::runtime {

namespace {

// After the deadline: the roll call takes its 2 s grace and then ends the job, so rank 0's timer
// waits longer than that, and the others' longer still.
constexpr double kRank0AfterSeconds = 5;
constexpr double kOthersAfterSeconds = 10;

using SteadyClock = std::chrono::steady_clock;

// No due time: far enough away, and unlike time_point::max() safe to wait until.
SteadyClock::time_point never() {
    return SteadyClock::now() + std::chrono::hours(24 * 365);
}

SteadyClock::time_point in_seconds(double seconds) {
    return SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(
                                    std::chrono::duration<double>(seconds));
}

std::string seconds_text(double seconds) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", seconds);
    return buf;
}

}  // namespace

std::string PlaceLimit::reason() const {
    return seconds_text(factor) + " x predicted " + seconds_text(predicted) + " s + " +
           seconds_text(floor) + " s floor";
}

struct RunBackstop::Timer {
    std::mutex mutex;
    std::condition_variable wake;
    bool done = false;  // stopped, or standing down
    std::string place = "the run";
    PlaceLimit limit;
    double after = 0;                             // seconds past a due limit before this rank acts
    SteadyClock::time_point place_due = never();  // the place's limit + after
    SteadyClock::time_point waking = never();     // when the thread wakes unless woken
    std::uint64_t places = 0;  // set_place calls, so the thread sees a new place's limit
    std::vector<std::string> temporaries;
    std::thread thread;
};

RunBackstop::RunBackstop() = default;

RunBackstop::RunBackstop(int rank, int size, double timeout_seconds, double remaining_seconds,
                         bool place_limits) {
    if (timeout_seconds <= 0 && !place_limits) return;
    timer_ = std::make_unique<Timer>();
    Timer* t = timer_.get();
    t->after = rank == 0 ? kRank0AfterSeconds : kOthersAfterSeconds;
    const auto run_due =
        timeout_seconds > 0 ? in_seconds(std::max(0.0, remaining_seconds) + t->after) : never();
    t->thread = std::thread([t, run_due, rank, size, timeout_seconds] {
        std::unique_lock lock(t->mutex);
        std::uint64_t seen = t->places;
        for (;;) {
            t->waking = std::min(run_due, t->place_due);
            t->wake.wait_until(lock, t->waking, [&] { return t->done || t->places != seen; });
            if (t->done) return;
            seen = t->places;  // a new place has its own limit
            if (SteadyClock::now() >= std::min(run_due, t->place_due)) break;  // a limit passed
        }
        const bool by_place = t->place_due < run_due;
        const std::string what =
            by_place
                ? t->place + " passed its limit of " + seconds_text(t->limit.seconds()) + " s (" +
                      t->limit.reason() + ") while rank " + std::to_string(rank) + " was in it"
                : "--timeout of " + seconds_text(timeout_seconds) + " s passed while rank " +
                      std::to_string(rank) + " was in " + t->place;
        const std::string line = error_line(
            rank, size,
            what + " (ended by this rank's own timer: no rank was waiting to call the roll)");
        std::fprintf(stderr, "%s\ntra: run aborted; no output was written at its final name\n",
                     line.c_str());
        std::fflush(stderr);
        for (const std::string& path : t->temporaries) std::remove(path.c_str());
        std::_Exit(1);
    });
}

RunBackstop::~RunBackstop() {
    if (!timer_) return;
    stand_down();
    timer_->thread.join();
}

void RunBackstop::set_place(const std::string& place, const PlaceLimit& limit) {
    if (!timer_) return;
    bool sooner = false;
    {
        const std::lock_guard lock(timer_->mutex);
        timer_->place = place;
        timer_->limit = limit;
        timer_->place_due = never();
        if (limit.seconds() > 0) timer_->place_due = in_seconds(limit.seconds() + timer_->after);
        ++timer_->places;
        sooner = timer_->place_due < timer_->waking;
    }
    // Woken only when the new limit is due before the thread would wake anyway: a run sets a
    // place per operator, and waking the thread each time cost a context switch per operator
    // (tens of microseconds where the ranks fill the cores). Otherwise it wakes at its old
    // time, sees the later limit and sleeps on.
    if (sooner) timer_->wake.notify_all();
}

void RunBackstop::remove_on_expiry(const std::vector<std::string>& paths) {
    if (!timer_) return;
    const std::lock_guard lock(timer_->mutex);
    timer_->temporaries = paths;
}

void RunBackstop::stand_down() {
    if (!timer_) return;
    {
        const std::lock_guard lock(timer_->mutex);
        timer_->done = true;
    }
    timer_->wake.notify_all();
}

}  // namespace tra::runtime
