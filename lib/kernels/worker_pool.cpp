#include "kernels/worker_pool.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tra::kernels {

namespace {

// How long an idle worker (or the caller, for its workers' parts) spins before it sleeps.
constexpr auto kSpin = std::chrono::microseconds(50);

void relax() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}

// Spins until ready() or kSpin has passed; whether ready() held.
template <class Ready>
bool spin_until(Ready ready) {
    const auto until = std::chrono::steady_clock::now() + kSpin;
    for (int i = 1;; ++i) {
        if (ready()) return true;
        relax();
        if (i % 32 == 0 && std::chrono::steady_clock::now() >= until) return ready();
    }
}

class Pool {
  public:
    void run(int parts, PoolTask task, void* context) {
        std::unique_lock busy(busy_, std::try_to_lock);
        if (!busy.owns_lock()) {  // the pool runs another loop: this one runs here
            for (int p = 0; p < parts; ++p) task(context, p);
            return;
        }
        try {
            start(parts, task, context);
        } catch (const std::system_error&) {  // no thread to be had: the loop runs here
            for (int p = 0; p < parts; ++p) task(context, p);
            return;
        }
        std::exception_ptr mine;
        try {
            task(context, 0);
        } catch (...) {
            mine = std::current_exception();
        }
        // Every part must end before the caller goes on: the parts use the caller's stack.
        if (!spin_until([&] { return remaining_.load(std::memory_order_acquire) == 0; })) {
            std::unique_lock lock(mutex_);
            done_.wait(lock, [&] { return remaining_.load(std::memory_order_acquire) == 0; });
        }
        if (mine) std::rethrow_exception(mine);
        if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
    }

  private:
    // Publishes the loop to the workers (starting those missing) and wakes them. Where a worker
    // cannot be started (std::system_error) the loop is not published: no worker runs a part.
    void start(int parts, PoolTask task, void* context) {
        std::lock_guard lock(mutex_);
        task_ = task;
        context_ = context;
        parts_ = parts;
        remaining_.store(parts - 1, std::memory_order_relaxed);
        const std::uint64_t before = generation_.load(std::memory_order_relaxed);
        for (; workers_ < parts - 1; ++workers_)
            std::thread(&Pool::work, this, workers_ + 1, before).detach();
        generation_.store(before + 1, std::memory_order_release);
        wake_.notify_all();
    }

    // Worker `part`'s life: each loop, its part where the loop has one.
    void work(int part, std::uint64_t seen) {
        for (;;) {
            const auto fresh = [&] { return generation_.load(std::memory_order_acquire) != seen; };
            if (!spin_until(fresh)) {
                std::unique_lock lock(mutex_);
                wake_.wait(lock, fresh);
            }
            PoolTask task = nullptr;
            void* context = nullptr;
            {
                // Under the lock: a worker without a part in this loop may read while the
                // next loop is being published.
                std::lock_guard lock(mutex_);
                seen = generation_.load(std::memory_order_relaxed);
                if (part >= parts_) continue;
                task = task_;
                context = context_;
            }
            try {
                task(context, part);
            } catch (...) {
                std::lock_guard lock(mutex_);
                if (!error_) error_ = std::current_exception();
            }
            if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                std::lock_guard lock(mutex_);  // the caller checks remaining_ under it, then waits
                done_.notify_one();
            }
        }
    }

    std::mutex busy_;   // held by the loop running on the pool
    std::mutex mutex_;  // guards the loop's fields and error_, and the sleeps on wake_ and done_
    std::condition_variable wake_;  // workers sleep here for the next loop
    std::condition_variable done_;  // the caller sleeps here for its workers' parts
    int workers_ = 0;               // workers started; worker i runs part i of each loop
    std::atomic<std::uint64_t> generation_{0};  // loops started so far
    std::atomic<int> remaining_{0};             // parts of the loop still running on workers
    PoolTask task_ = nullptr;
    void* context_ = nullptr;
    int parts_ = 0;
    std::exception_ptr error_;
};

// Never destroyed: its workers live as long as the process (they sleep when idle).
Pool& pool() {
    static Pool* instance = new Pool;
    return *instance;
}

}  // namespace

void run_on_workers(int parts, PoolTask task, void* context) {
    if (parts <= 1) {
        if (parts == 1) task(context, 0);
        return;
    }
    pool().run(parts, task, context);
}

}  // namespace tra::kernels
