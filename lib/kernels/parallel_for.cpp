// parallel_for on OpenMP (libgomp with gcc) rather than std::thread: its team of threads persists
// between loops, so a fork costs a few microseconds where starting threads per loop would cost
// tens, and an own pool with its own wake-up protocol would be more code to get right. The team
// is sized per loop by kernel_threads(), the rank's BLAS thread count, so kernels and BLAS never
// have more threads running than the rank was given: kernels never run during a BLAS call, and
// OpenBLAS's idle threads yield their cores (sched_yield) while they wait. Loops called from
// inside a parallel region run on the calling thread (no nesting).
#include "kernels/parallel_for.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <type_traits>

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
    const std::int64_t threads =
        omp_in_parallel() ? 1 : std::min<std::int64_t>(kernel_threads(), n / grain);
    if (threads <= 1) {
        chunk(body, 0, n);
        return;
    }
    // Equal chunks, one per thread: the kernels' items cost about the same.
#pragma omp parallel num_threads(static_cast <int>(threads))
    {
        const std::int64_t t = omp_get_thread_num(), team = omp_get_num_threads();
        const std::int64_t begin = n * t / team, end = n * (t + 1) / team;
        if (begin < end) chunk(body, begin, end);
    }
}

}  // namespace detail

}  // namespace tra::kernels
