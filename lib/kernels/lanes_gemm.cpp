// The lanes product (lanes_gemm.hpp), GotoBLAS's loop nest with vectors of lanes for elements.
// One task computes G vectors of W lanes (G x W lanes of each position) for a range of C's
// columns: it packs B's rows for all its columns (up to kBPanelBytes at a time), then, block of
// kMc rows by block and Kc inner indices at a time, A's, into panels where each position holds
// its lanes contiguously, one panel per vector; a register tile of Mr x Nr vectors sums over
// the inner indices, keeping partial sums in a panel of its own between blocks, and writes C's
// tile once at the end. Packing pads partial vectors and edge tiles with zeros, so the register
// tile never branches; the writes touch only real elements. W, G, Mr and Nr are the register
// tile's geometry, and Kc its blocks of inner indices (lanes_tiles.hpp: AVX-512's or AVX2's), a
// template parameter L throughout.
#include "kernels/lanes_gemm.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <vector>

#include "kernels/lanes_tiles.hpp"
#include "kernels/parallel_for.hpp"

namespace tra::kernels::cpu {

namespace {

using lanes::TileFn;

constexpr std::int64_t kMc = 48;  // rows per packed A block (a multiple of every Mr): fits L2
constexpr std::int64_t kBPanelBytes = std::int64_t{16} << 20;  // packed B per task

// Copies `valid` lanes from src to a W-lane slot, zeros the rest.
template <int W, class T>
inline void put_lanes(T* slot, const T* src, int valid) {
    if (valid == W) {  // a constant size, which the compiler turns into vector moves
        std::memcpy(slot, src, sizeof(T) * W);
        return;
    }
    std::copy_n(src, valid, slot);
    std::fill(slot + valid, slot + W, T(0));
}

// rows x depth positions of a strided operand, `lanes` lanes each (at most G vectors), into G
// panels of `panel` elements, one per vector of lanes, each laid out [tile][p][r][W] in tiles of
// `tile` rows. The walk follows the source's memory order (its smaller stride innermost), and
// reads each position's lanes once: whole cache lines where the lanes fill them.
template <int W, class T>
void pack(const T* x, std::int64_t row_stride, std::int64_t depth_stride, std::int64_t rows,
          std::int64_t depth, int tile, int lanes, std::int64_t panel, T* out) {
    const int vectors = (lanes + W - 1) / W;
    const std::int64_t padded = (rows + tile - 1) / tile * tile;
    auto put = [&](std::int64_t r, std::int64_t p) {
        const std::int64_t slot = ((r / tile * depth + p) * tile + r % tile) * W;
        const T* src = x + r * row_stride + p * depth_stride;
        for (int v = 0; v < vectors; ++v) {
            T* dst = out + v * panel + slot;
            if (r < rows)
                put_lanes<W>(dst, src + v * W, std::min(W, lanes - v * W));
            else
                std::fill(dst, dst + W, T(0));
        }
    };
    if (row_stride > depth_stride)
        for (std::int64_t r = 0; r < padded; ++r)
            for (std::int64_t p = 0; p < depth; ++p) put(r, p);
    else
        for (std::int64_t p = 0; p < depth; ++p)
            for (std::int64_t r = 0; r < padded; ++r) put(r, p);
}

// Adds (or, when `assign`, copies) `n` lanes from src to dst; a whole vector in a fixed count.
template <int W, class T>
inline void write_lanes(T* dst, const T* src, int n, bool assign) {
    if (n == W) {
        if (assign)
            std::memcpy(dst, src, sizeof(T) * W);
        else
            for (int l = 0; l < W; ++l) dst[l] += src[l];
        return;
    }
    for (int l = 0; l < n; ++l) dst[l] = assign ? src[l] : dst[l] + src[l];
}

// Writes the first rows x cols positions of a register tile's sums ([r][j][W]) to C at dst.
template <class L, class T>
void write_tile(T* dst, std::int64_t row_stride, std::int64_t col_stride, const T* sums,
                std::int64_t rows, std::int64_t cols, int lanes, bool assign) {
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t j = 0; j < cols; ++j)
            write_lanes<L::W>(dst + r * row_stride + j * col_stride, sums + (r * L::Nr + j) * L::W,
                              lanes, assign);
}

// Sizes of one task's panels, in elements: per vector of lanes A's block and B's packed rows
// for all the task's columns, and for all vectors the partial sums of one block of C's rows
// ([vector][column tile][row tile][r][j][W]).
template <class L, class T>
struct Panels {
    std::int64_t depth, a, b, c;
    // B's rows packed at a time depend on all of C's columns, not a task's: they decide where
    // C's sums are split, which must not depend on the thread count.
    Panels(const LanesGemm& g, std::int64_t cols) {
        const auto padded = [](std::int64_t n) { return (n + L::Nr - 1) / L::Nr * L::Nr; };
        const std::int64_t rows = (std::min(kMc, g.m) + L::Mr - 1) / L::Mr * L::Mr;
        const std::int64_t fits =
            kBPanelBytes / (padded(g.n) * L::G * L::W * std::int64_t{sizeof(T)});
        depth = std::min(g.k, std::max<std::int64_t>(1, fits / L::Kc) * L::Kc);
        a = lines(rows * std::min(L::Kc, g.k) * L::W);
        b = lines(padded(cols) * depth * L::W);
        c = lines(rows * padded(cols) * L::G * L::W);
    }
    // Elements of one task loop's panels: G vectors of A's and of B's, and the sums.
    std::int64_t per_loop() const { return L::G * (a + b) + c; }

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
    const auto need = static_cast<std::size_t>(elements) + 64 / sizeof(T);
    if (buffer.size() < need) buffer.resize(need);
    void* p = buffer.data();
    std::size_t space = buffer.size() * sizeof(T);
    return static_cast<T*>(
        std::align(64, static_cast<std::size_t>(elements) * sizeof(T), p, space));
}

// C's part of one task: lanes [l0, l0 + G * W) (or to the last) of columns [j0, j1), with
// scratch for G vectors of each of the panels `sizes`.
template <class L, class T>
void run_task(const LanesGemm& g, const T* a, const T* b, T* c, bool accumulate, TileFn<T> tile,
              std::int64_t l0, std::int64_t j0, std::int64_t j1, const Panels<L, T>& sizes, T* ap,
              T* bp, T* cp) {
    constexpr int W = L::W, Mr = L::Mr, Nr = L::Nr;
    constexpr int kTile = Mr * Nr * W;
    const int lanes = static_cast<int>(std::min<std::int64_t>(L::G * W, g.lanes - l0));
    const std::int64_t cols = j1 - j0, padded_cols = (cols + Nr - 1) / Nr * Nr;
    // B's rows are packed sizes.depth at a time (all of them unless B's panel would not fit).
    for (std::int64_t q0 = 0; q0 < g.k; q0 += sizes.depth) {
        const std::int64_t qn = std::min(sizes.depth, g.k - q0);
        // Blocks of Kc rows, each [column tile][p][j][W].
        for (std::int64_t p0 = 0; p0 < qn; p0 += L::Kc)
            pack<W>(b + (q0 + p0) * g.b_rows + j0 * g.b_cols + l0, g.b_cols, g.b_rows, cols,
                    std::min(L::Kc, qn - p0), Nr, lanes, sizes.b, bp + p0 * padded_cols * W);
        for (std::int64_t i0 = 0; i0 < g.m; i0 += kMc) {
            const std::int64_t mc = std::min(kMc, g.m - i0), row_tiles = (mc + Mr - 1) / Mr;
            for (std::int64_t p0 = 0; p0 < qn; p0 += L::Kc) {
                const std::int64_t kc = std::min(L::Kc, qn - p0);
                pack<W>(a + i0 * g.a_rows + (q0 + p0) * g.a_cols + l0, g.a_rows, g.a_cols, mc, kc,
                        Mr, lanes, sizes.a, ap);
                const bool last = p0 + L::Kc >= qn, assign = q0 == 0 && !accumulate;
                for (int v = 0; v * W < lanes; ++v)
                    for (std::int64_t jt = 0; jt < cols; jt += Nr)
                        for (std::int64_t it = 0; it < row_tiles; ++it) {
                            T* sums = cp + ((v * padded_cols + jt) / Nr * row_tiles + it) * kTile;
                            T* out =
                                c + (i0 + it * Mr) * g.c_rows + (j0 + jt) * g.c_cols + l0 + v * W;
                            const std::int64_t rows = std::min<std::int64_t>(Mr, mc - it * Mr),
                                               cs = std::min<std::int64_t>(Nr, cols - jt);
                            if (last)  // C's lines arrive while the tile computes
                                for (std::int64_t r = 0; r < rows; ++r)
                                    for (std::int64_t j = 0; j < cs; ++j)
                                        __builtin_prefetch(out + r * g.c_rows + j * g.c_cols, 1);
                            tile(kc, ap + v * sizes.a + it * Mr * kc * W,
                                 bp + v * sizes.b + (p0 * padded_cols + jt * kc) * W, sums, p0 > 0);
                            if (last)  // the sums over all of B's packed rows, while in L1
                                write_tile<L>(out, g.c_rows, g.c_cols, sums, rows, cs,
                                              std::min(W, lanes - v * W), assign);
                        }
            }
        }
    }
}

// Runs the product's tasks: groups of G vectors of lanes, each split into column ranges when
// there are fewer groups than threads (attention's 8 heads are one group); a split repacks A,
// so ranges stay at least 64 columns.
template <class L, class T>
void run_tasks(const LanesGemm& g, const T* a, const T* b, T* c, bool accumulate, TileFn<T> tile) {
    constexpr int W = L::W, G = L::G;
    const std::int64_t groups = (g.lanes + G * W - 1) / (G * W);
    const std::int64_t threads = kernel_threads();
    const std::int64_t splits = std::clamp<std::int64_t>((threads + groups - 1) / groups, 1,
                                                         std::max<std::int64_t>(1, g.n / 64));
    const std::int64_t span = (g.n + splits - 1) / splits;
    const std::int64_t flops_per_task = 2 * g.m * span * g.k * G * W;
    const std::int64_t grain = std::max<std::int64_t>(1, (std::int64_t{1} << 24) / flops_per_task);
    const Panels<L, T> sizes(g, span);
    const std::int64_t loops = std::min(groups * splits, threads);  // parallel_for's chunks
    T* scratch = panel_scratch<T>(loops * sizes.per_loop());
    std::atomic<std::int64_t> next_loop{0};
    parallel_for(groups * splits, grain, [&](std::int64_t begin, std::int64_t end) {
        T* ap = scratch + next_loop++ * sizes.per_loop();
        T* bp = ap + G * sizes.a;
        T* cp = bp + G * sizes.b;
        for (std::int64_t t = begin; t < end; ++t) {
            const std::int64_t j0 = (t % splits) * span, j1 = std::min(g.n, j0 + span);
            if (j0 < j1)
                run_task<L>(g, a, b, c, accumulate, tile, (t / splits) * G * W, j0, j1, sizes, ap,
                            bp, cp);
        }
    });
}

}  // namespace

template <class T>
void lanes_gemm(const LanesGemm& g, const T* a, const T* b, T* c, bool accumulate, LanesIsa isa) {
    if (g.m == 0 || g.n == 0 || g.lanes == 0) return;
    if (g.k == 0) {  // an empty sum
        if (!accumulate)
            for (std::int64_t i = 0; i < g.m; ++i)
                for (std::int64_t j = 0; j < g.n; ++j)
                    std::fill_n(c + i * g.c_rows + j * g.c_cols, g.lanes, T(0));
        return;
    }
#ifdef TRA_LANES_X86
    if (isa == LanesIsa::best && lanes::cpu_has_avx512())
        return run_tasks<lanes::Wide<T>>(g, a, b, c, accumulate, lanes::tile_avx512<T>);
    if (isa == LanesIsa::best && lanes::cpu_has_avx2())
        return run_tasks<lanes::Narrow<T>>(g, a, b, c, accumulate, lanes::tile_avx2<T>);
#endif
    (void)isa;
    run_tasks<lanes::Narrow<T>>(g, a, b, c, accumulate, lanes::tile_portable<T, lanes::Narrow<T>>);
}

template void lanes_gemm<float>(const LanesGemm&, const float*, const float*, float*, bool,
                                LanesIsa);
template void lanes_gemm<double>(const LanesGemm&, const double*, const double*, double*, bool,
                                 LanesIsa);

}  // namespace tra::kernels::cpu
