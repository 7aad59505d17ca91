#pragma once
// The one parallel loop of the non-BLAS kernels (element-wise maps, reductions, permutes, the
// einsum loop): they use the threads the rank gives its BLAS, which are idle while these run
// (a kernel never runs during a BLAS call), so a rank with 2 BLAS threads runs them on 2 cores
// and one with 1 thread stays on one (docs/runtime.md, "Ranks and BLAS threads").
#include <cstdint>
#include <utility>

namespace tra::kernels {

// Elements per thread below which a kernel runs on one thread (32 KiB of f64, a few
// microseconds of an element-wise pass): handing a chunk to a pool worker costs about a
// microsecond while it spins, tens while it sleeps (worker_pool.hpp). It was 1 << 15 while every
// loop started its threads (about 40 us each): a subtraction over 240 KB tiles then ran on one
// thread, at 14 GB/s against 26 on two (docs/benchmarks.md, "Kernels' threads kept").
inline constexpr std::int64_t kGrainElements = 1 << 12;

// The threads a kernel may use: the last set_kernel_threads (set_blas_threads calls it, so per
// rank the BLAS's count), else the BLAS's own count (OPENBLAS_NUM_THREADS), else 1.
int kernel_threads();
void set_kernel_threads(int threads);

// Calls body(begin, end) on consecutive, disjoint chunks that together cover [0, n), on up to
// kernel_threads() threads (the caller is one of them), and returns when all are done. Every
// chunk but the last holds at least `grain` items, so work under 2 * grain items runs on the
// caller alone: a fork costs microseconds. Where the chunks split depends on the thread count,
// so a body may only write outputs of its own items (then results do not depend on it).
template <class Body>
void parallel_for(std::int64_t n, std::int64_t grain, Body&& body);

// The same on up to `threads` threads, fixed before it starts: for a caller that changes the
// BLAS's threads meanwhile (kernel_threads() follows them where none were set).
template <class Body>
void parallel_for_on(int threads, std::int64_t n, std::int64_t grain, Body&& body);

namespace detail {
using ChunkFn = void (*)(void* body, std::int64_t begin, std::int64_t end);
void parallel_for_erased(int threads, std::int64_t n, std::int64_t grain, ChunkFn chunk,
                         void* body);
}  // namespace detail

template <class Body>
void parallel_for(std::int64_t n, std::int64_t grain, Body&& body) {
    parallel_for_on(kernel_threads(), n, grain, std::forward<Body>(body));
}

template <class Body>
void parallel_for_on(int threads, std::int64_t n, std::int64_t grain, Body&& body) {
    using B = std::remove_reference_t<Body>;
    detail::parallel_for_erased(
        threads, n, grain,
        [](void* b, std::int64_t begin, std::int64_t end) { (*static_cast<B*>(b))(begin, end); },
        const_cast<void*>(static_cast<const void*>(&body)));
}

}  // namespace tra::kernels
