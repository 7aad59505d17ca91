#pragma once
// The lanes product's panels (lanes_gemm.cpp): how big they are, how a product is split into
// tasks among threads, and the scratch that holds them. One geometry for the product and for what
// it reports it takes (lanes_gemm_scratch_bytes, the peak-memory model's figure).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/lanes_gemm.hpp"
#include "kernels/scratch_held.hpp"

namespace tra::kernels::cpu::lanes {

// Rows per packed A block at most (a multiple of every Mr): fewer blocks read B's packed panel
// fewer times (64 lanes x 256^3 f64 on an EPYC core: 96 rows ran 0.055-0.058 s against
// 0.058-0.064 with 48; 8 lanes 0.051 against 0.060). Blocks are made smaller so that every
// thread gets as many.
constexpr std::int64_t kMc = 96;
// Packed B (shared by the threads) and packed A (per thread), at most; more inner indices than
// fit are summed in parts, each added to C. B of 64 lanes x 256 x 256 f64 (32 MiB) packs whole.
constexpr std::int64_t kBPanelBytes = std::int64_t{32} << 20;
constexpr std::int64_t kAPanelBytes = std::int64_t{16} << 20;

// Sizes of the panels, in elements: per vector of lanes, B's packed rows for all of C's columns
// and A's block of `rows` rows for the same inner indices, and one vector's partial sums of a
// task's block of C ([column tile][row tile][r][j][W]). Lanes are packed `vectors` at a time: all
// of them unless Kc inner indices of that many would not fit the panels' bounds.
template <class L, class T>
struct Panels {
    std::int64_t vectors, depth, a, b, c;
    // Inner indices packed at a time depend on the extents only, not on the thread count: they
    // decide where C's sums are split.
    Panels(const LanesGemm& g, std::int64_t rows, std::int64_t span) {
        const auto padded = [](std::int64_t n, std::int64_t to) { return (n + to - 1) / to * to; };
        const std::int64_t cols = padded(g.n, L::Nr);
        const std::int64_t most_rows = padded(std::min(kMc, g.m), L::Mr);  // whatever the threads
        const std::int64_t vector_bytes = L::W * std::int64_t{sizeof(T)};
        const auto fit = [&](std::int64_t per_vector_row) {  // rows of inner indices that fit
            return std::min(kBPanelBytes / (cols * per_vector_row),
                            kAPanelBytes / (most_rows * per_vector_row));
        };
        vectors =
            std::clamp<std::int64_t>(fit(vector_bytes) / L::Kc, 1, (g.lanes + L::W - 1) / L::W);
        depth =
            std::min(g.k, std::max<std::int64_t>(1, fit(vectors * vector_bytes) / L::Kc) * L::Kc);
        b = lines(cols * depth * L::W);
        a = lines(rows * depth * L::W);
        c = lines(rows * padded(span, L::Nr) * L::W);
    }
    // Elements of one task loop's panels: every vector's A block, and the sums.
    std::int64_t per_loop() const { return vectors * a + c; }

  private:
    static std::int64_t lines(std::int64_t n) {  // whole cache lines: panels stay aligned
        constexpr std::int64_t line = 64 / sizeof(T);
        return (n + line - 1) / line * line;
    }
};

// Scratch for the panels of `loops` task loops, 64-byte aligned (the register tile's loads are
// aligned), kept between calls on the calling thread: fresh pages on every call (first-touch
// faults of up to kBPanelBytes per loop) would cost more than packing.
template <class T>
T* panel_scratch(std::int64_t elements) {
    thread_local std::vector<T> buffer;
    thread_local HeldBytes held;  // scratch_bytes_held(), as lanes_gemm_scratch_bytes says
    const auto need = static_cast<std::size_t>(elements) + 64 / sizeof(T);
    if (buffer.size() < need) {
        buffer.resize(need);
        held.set(static_cast<std::int64_t>(need * sizeof(T)));
    }
    void* p = buffer.data();
    std::size_t space = buffer.size() * sizeof(T);
    return static_cast<T*>(
        std::align(64, static_cast<std::size_t>(elements) * sizeof(T), p, space));
}

// Flops a thread must get for a product to be split (a fork and B's packing on more threads cost
// tens of microseconds), and rows per block below which a small product stays whole. f64, 2
// threads of a Zen 4 EPYC, GFLOP/s (one thread: 35 at 64^3 x 8 lanes, 29 at 32^3 x 64): 64^3 x 8
// lanes 35 -> 50-54 with 2^21 against the 2^24 of before; 96^3 x 8 40 -> 61-72; 32^3 x 64 lanes
// (16-row blocks) 29 -> 20-25 split, so it is not (kThreadRows).
constexpr std::int64_t kThreadFlops = std::int64_t{1} << 21;
constexpr std::int64_t kThreadRows = 24;

// How run_tasks splits a product among up to `most_threads` threads (threads_for: fewer where the
// product is small): tasks of a block of up to kMc of C's rows each, split into column ranges
// when blocks are fewer than threads (a split packs A's block again, so ranges stay at least 64
// columns); the panels' sizes, and how many task loops run at once (parallel_for's chunks), each
// with panels of its own. B's packing runs on the same threads.
template <class L, class T>
struct TaskGrid {
    std::int64_t threads, rows, blocks, splits, span, loops;
    Panels<L, T> sizes;

    TaskGrid(const LanesGemm& g, std::int64_t most_threads)
        : threads(threads_for(g, most_threads)),
          rows(block_rows(g, threads)),
          blocks((g.m + rows - 1) / rows),
          splits(std::clamp<std::int64_t>((threads + blocks - 1) / blocks, 1,
                                          std::max<std::int64_t>(1, g.n / 64))),
          span(((g.n + splits - 1) / splits + L::Nr - 1) / L::Nr * L::Nr),
          loops(std::min(blocks * splits, threads)),
          sizes(g, rows, span) {}

    // Elements of scratch the product takes: B's panels and every loop's.
    std::int64_t scratch_elements() const {
        return sizes.vectors * sizes.b + loops * sizes.per_loop();
    }

  private:
    // Threads that pay: each gets kThreadFlops at least, and while the product is small, also
    // a block of kThreadRows of C's rows (fewer ran slower on two threads than whole on one).
    static std::int64_t threads_for(const LanesGemm& g, std::int64_t most) {
        const double flops = 2.0 * double(g.m) * double(g.n) * double(g.k) * double(g.lanes);
        std::int64_t threads = static_cast<std::int64_t>(flops / double(kThreadFlops));
        if (flops < 16.0 * double(kThreadFlops))
            threads = std::min(threads, g.m / kThreadRows);
        return std::clamp<std::int64_t>(threads, 1, std::max<std::int64_t>(1, most));
    }
    static std::int64_t block_rows(const LanesGemm& g, std::int64_t threads) {
        const std::int64_t per_thread = (g.m + threads * kMc - 1) / (threads * kMc);
        return std::min(
            kMc, ((g.m + threads * per_thread - 1) / (threads * per_thread) + L::Mr - 1) / L::Mr *
                     L::Mr);
    }
};

}  // namespace tra::kernels::cpu::lanes
