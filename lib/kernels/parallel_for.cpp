// parallel_for on std::thread, started per loop, rather than OpenMP or a pool: idle OpenMP
// threads (libgomp) and OpenBLAS's both spin-wait after their work, and measured on 1 rank x 2
// threads (vs_numpy.py attention) an OpenMP team spinning beside OpenBLAS's threads made the
// rank 1.6x slower. Threads that end with their loop never compete with the BLAS, and starting
// one costs tens of microseconds, small against the grain (a loop below 2 grains stays on the
// caller). The threads are kernel_threads(), the rank's BLAS thread count, and kernels never run
// during a BLAS call, so the rank never has more threads running than it was given.
#include "kernels/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <thread>
#include <type_traits>
#include <vector>

extern "C" int openblas_get_num_threads() __attribute__((weak));

namespace tra::kernels {

namespace {
std::atomic<int> set_threads{0};  // 0: not set
}  // namespace

int kernel_threads() {
    if (const int n = set_threads.load(std::memory_order_relaxed); n > 0) return n;
    if (!openblas_get_num_threads) return 1;
    return std::max(1, openblas_get_num_threads());
}

void set_kernel_threads(int threads) {
    set_threads.store(std::max(1, threads), std::memory_order_relaxed);
}

namespace detail {

void parallel_for_erased(std::int64_t n, std::int64_t grain, ChunkFn chunk, void* body) {
    if (n <= 0) return;
    grain = std::max<std::int64_t>(grain, 1);
    const std::int64_t threads = std::min<std::int64_t>(kernel_threads(), n / grain);
    if (threads <= 1) {
        chunk(body, 0, n);
        return;
    }
    // Equal chunks, one per thread (the kernels' items cost about the same); the caller takes
    // the first.
    std::vector<std::thread> helpers;
    helpers.reserve(static_cast<std::size_t>(threads - 1));
    for (std::int64_t t = 1; t < threads; ++t)
        helpers.emplace_back(chunk, body, n * t / threads, n * (t + 1) / threads);
    chunk(body, 0, n / threads);
    for (std::thread& h : helpers) h.join();
}

}  // namespace detail

}  // namespace tra::kernels
