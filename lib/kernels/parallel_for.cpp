// parallel_for on threads of our own (worker_pool.hpp) rather than OpenMP: idle OpenMP threads
// (libgomp) and OpenBLAS's both spin-wait after their work, and measured on 1 rank x 2 threads
// (vs_numpy.py attention) an OpenMP team spinning beside OpenBLAS's threads made the rank 1.6x
// slower. The pool's workers spin only briefly before they sleep. The threads are
// kernel_threads(), the rank's BLAS thread count, and kernels never run during a BLAS call, so
// the rank never has more threads running than it was given.
#include "kernels/parallel_for.hpp"

#include <algorithm>
#include <atomic>

#include "kernels/blas_threads.hpp"
#include "kernels/worker_pool.hpp"

namespace tra::kernels {

namespace {
std::atomic<int> set_threads{0};  // 0: not set
}  // namespace

int kernel_threads() {
    if (const int n = set_threads.load(std::memory_order_relaxed); n > 0) return n;
    return std::max(1, blas_threads());  // 0 where the BLAS cannot be asked
}

void set_kernel_threads(int threads) {
    set_threads.store(std::max(1, threads), std::memory_order_relaxed);
}

namespace detail {

void parallel_for_erased(int max_threads, std::int64_t n, std::int64_t grain, ChunkFn chunk,
                         void* body) {
    if (n <= 0) return;
    grain = std::max<std::int64_t>(grain, 1);
    const std::int64_t threads = std::min<std::int64_t>(max_threads, n / grain);
    if (threads <= 1) {
        chunk(body, 0, n);
        return;
    }
    // Equal chunks, one per thread (the kernels' items cost about the same); the caller takes
    // the first.
    struct Loop {
        std::int64_t n, threads;
        ChunkFn chunk;
        void* body;
    } loop{n, threads, chunk, body};
    run_on_workers(
        static_cast<int>(threads),
        [](void* context, int part) {
            const auto& l = *static_cast<const Loop*>(context);
            l.chunk(l.body, l.n * part / l.threads, l.n * (part + 1) / l.threads);
        },
        &loop);
}

}  // namespace detail

}  // namespace tra::kernels
