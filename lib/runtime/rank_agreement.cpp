#include "runtime/rank_agreement.hpp"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "runtime/polite_barrier.hpp"

namespace tra::runtime {

RankAgreement::RankAgreement(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
}

namespace {

// Runs `work`, returning its failure's exit code and message (0: none). An AgreedFailure passes
// through: a nested step already agreed (every rank is throwing it).
int run_caught(const std::function<void()>& work, std::string& message) {
    try {
        work();
    } catch (const AgreedFailure&) {
        throw;
    } catch (const Error& e) {
        message = e.what();
        return e.exit_code();
    } catch (const std::exception& e) {
        message = e.what();
        return static_cast<int>(ErrorKind::Failed);
    }
    return 0;
}

}  // namespace

void RankAgreement::step(const std::function<void()>& work, Waiting waiting) const {
    std::string message;
    // After a deferred failure this rank does no more work: it only tells the others.
    const int code = deferred_code_ ? 0 : run_caught(work, message);
    settle(code, message, waiting);
}

void RankAgreement::defer(const std::function<void()>& work) const {
    if (deferred_code_) return;  // the first failure is the one reported
    deferred_code_ = run_caught(work, deferred_message_);
}

int RankAgreement::rank0_code(int code) const {
    MPI_Request sent;
    MPI_Ibcast(&code, 1, MPI_INT, 0, comm_, &sent);
    wait_politely(sent);
    return code;
}

void RankAgreement::settle(int code, const std::string& caught, Waiting waiting) const {
    std::string message = caught;
    if (!code && deferred_code_) {
        code = deferred_code_;
        message = deferred_message_;
    }
    deferred_code_ = 0;
    deferred_message_.clear();
    int mine = code ? rank_ : size_, lowest = size_;
    if (watchdog_ && watchdog_->on()) {
        std::vector<MPI_Request> all(1);
        std::vector<MPI_Status> statuses;
        MPI_Iallreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, comm_, all.data());
        watchdog_->wait_all(all, statuses);
    } else if (waiting == Waiting::Sleeping) {
        MPI_Request agreed;
        MPI_Iallreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, comm_, &agreed);
        wait_politely(agreed);
    } else {
        MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, comm_);
    }
    if (lowest == size_) return;
    if (rank_ == lowest) {
        std::cerr << error_line(rank_, size_, message) << "\n";
        std::cerr.flush();
    }
    MPI_Bcast(&code, 1, MPI_INT, lowest, comm_);
    throw AgreedFailure{code};
}

namespace {

// How long an aborting rank waits for the launcher to forward its error line.
constexpr int kForwardMilliseconds = 500;

}  // namespace

std::string error_line(int rank, int size, const std::string& message) {
    return "tra: error" + (size > 1 ? " (rank " + std::to_string(rank) + ")" : std::string()) +
           ": " + message;
}

void abort_job(MPI_Comm comm, const std::string& message, int code) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    std::cerr << error_line(rank, size, message)
              << "\ntra: run aborted; no output was written at its final name\n";
    std::cerr.flush();
    // The line is in the pipe to the launcher, which forwards it when it next reads there; an
    // abort can tear the launcher down first (MPICH's Hydra lost the whole message that way, a
    // few times in CI), so give it a moment to read.
    std::this_thread::sleep_for(std::chrono::milliseconds(kForwardMilliseconds));
    MPI_Abort(comm, code);
    std::_Exit(code);
}

}  // namespace tra::runtime
