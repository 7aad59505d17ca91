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

}  // namespace

struct RunBackstop::Timer {
    std::mutex mutex;
    std::condition_variable wake;
    bool done = false;  // stopped, or standing down
    std::string place = "the run";
    std::vector<std::string> temporaries;
    std::thread thread;
};

RunBackstop::RunBackstop() = default;

RunBackstop::RunBackstop(int rank, int size, double timeout_seconds, double remaining_seconds) {
    if (timeout_seconds <= 0) return;
    timer_ = std::make_unique<Timer>();
    const double after = rank == 0 ? kRank0AfterSeconds : kOthersAfterSeconds;
    const auto wait = std::chrono::duration<double>(std::max(0.0, remaining_seconds) + after);
    Timer* t = timer_.get();
    t->thread = std::thread([t, wait, rank, size, timeout_seconds] {
        std::unique_lock lock(t->mutex);
        if (t->wake.wait_for(lock, wait, [t] { return t->done; })) return;
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%g", timeout_seconds);
        const std::string line = error_line(
            rank, size,
            std::string("--timeout of ") + seconds + " s passed while rank " +
                std::to_string(rank) + " was in " + t->place +
                " (ended by this rank's own timer: no rank was waiting to call the roll)");
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

void RunBackstop::set_place(const std::string& place) {
    if (!timer_) return;
    const std::lock_guard lock(timer_->mutex);
    timer_->place = place;
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
