#include "runtime/run_watchdog.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "core/error.hpp"

namespace tra::runtime {

namespace {

constexpr int kRollTag = 7301;
// How long a rank past the deadline listens for the others: long next to the moment the waiting
// ranks notice the deadline (each polls), short next to any timeout worth setting.
constexpr double kGraceSeconds = 2.0;
// A silent rank ends the job itself if the message's rank has not after this long (it died).
constexpr double kSilentSeconds = 30.0;

void sleep_ms(int ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

std::string number(double seconds) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", seconds);
    return buf;
}

}  // namespace

RunWatchdog::RunWatchdog(MPI_Comm comm, double started, double timeout_seconds,
                         bool operator_limits, RunBackstop* backstop)
    : backstop_(backstop) {
    if (timeout_seconds <= 0 && !operator_limits) return;
    on_ = true;
    timeout_ = timeout_seconds;
    deadline_ = timeout_seconds > 0 ? started + timeout_seconds : 0;
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
    MPI_Comm_dup(comm, &roll_);
}

RunWatchdog::~RunWatchdog() {
    if (roll_ != MPI_COMM_NULL && !expired_) MPI_Comm_free(&roll_);
}

PlaceLimit operator_limit(double factor, double floor_seconds, double predicted_seconds) {
    if (factor <= 0) return {};
    return {factor, predicted_seconds, floor_seconds};
}

void RunWatchdog::set_place(std::string place, PlaceLimit limit) {
    if (backstop_) backstop_->set_place(place, limit);
    place_ = std::move(place);
    limit_ = std::move(limit);
    place_deadline_ = on_ && limit_.seconds() > 0 ? MPI_Wtime() + limit_.seconds() : 0;
}

int RunWatchdog::wait_all(std::vector<MPI_Request>& requests,
                          std::vector<MPI_Status>& statuses) const {
    statuses.resize(requests.size());
    const int n = static_cast<int>(requests.size());
    if (!on_) return MPI_Waitall(n, requests.data(), statuses.data());
    for (int done = 0;;) {
        const int rc = MPI_Testall(n, requests.data(), &done, statuses.data());
        if (rc != MPI_SUCCESS || done) return rc;
        const double now = MPI_Wtime();
        if ((deadline_ > 0 && now > deadline_) || (place_deadline_ > 0 && now > place_deadline_))
            expire();
        // Polling, as MPI's own waits do; a short sleep would add itself to every step.
        std::this_thread::yield();
    }
}

void RunWatchdog::expire() const {
    expired_ = true;
    if (backstop_) backstop_->stand_down();  // this roll call ends the run, or another rank's
    // The roll call: everyone who is waiting too says so.
    std::vector<MPI_Request> said(static_cast<std::size_t>(size_), MPI_REQUEST_NULL);
    for (int r = 0; r < size_; ++r)
        if (r != rank_) MPI_Isend(&rank_, 1, MPI_INT, r, kRollTag, roll_, &said[r]);
    std::vector<bool> heard(static_cast<std::size_t>(size_), false);
    heard[static_cast<std::size_t>(rank_)] = true;
    int answers = 1;
    const double until = MPI_Wtime() + kGraceSeconds;
    while (answers < size_ && MPI_Wtime() < until) {
        int flag = 0;
        MPI_Status status;
        MPI_Iprobe(MPI_ANY_SOURCE, kRollTag, roll_, &flag, &status);
        if (!flag) {
            sleep_ms(1);
            continue;
        }
        int who = 0;
        MPI_Recv(&who, 1, MPI_INT, status.MPI_SOURCE, kRollTag, roll_, MPI_STATUS_IGNORE);
        if (!heard[static_cast<std::size_t>(status.MPI_SOURCE)]) ++answers;
        heard[static_cast<std::size_t>(status.MPI_SOURCE)] = true;
    }
    int lowest = rank_;
    std::string missing;
    for (int r = 0; r < size_; ++r) {
        if (heard[static_cast<std::size_t>(r)]) {
            lowest = std::min(lowest, r);
        } else {
            missing += (missing.empty() ? "" : ",") + std::to_string(r);
        }
    }
    // Whichever deadline came first is the one that passed (both may have by now).
    const bool by_place = place_deadline_ > 0 && (deadline_ <= 0 || place_deadline_ < deadline_);
    const std::string what =
        by_place ? place_ + " passed its limit of " + number(limit_.seconds()) + " s (" +
                       limit_.reason() + ") while rank " + std::to_string(rank_) + " waited in it"
                 : "--timeout of " + number(timeout_) + " s passed while rank " +
                       std::to_string(rank_) + " waited in " + place_;
    if (lowest == rank_)
        throw Error(what + "; " +
                        (missing.empty() ? std::string("every rank is waiting (in different steps)")
                                         : "rank(s) " + missing + " did not arrive"),
                    {}, ErrorKind::Failed);
    // A lower rank prints and ends the job; this one waits for that, quietly.
    sleep_ms(static_cast<int>(kSilentSeconds * 1000));
    MPI_Abort(roll_, 1);
    std::_Exit(1);
}

}  // namespace tra::runtime
