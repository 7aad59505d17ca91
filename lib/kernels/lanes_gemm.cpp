// The lanes product (lanes_gemm.hpp), GotoBLAS's loop nest with vectors of lanes for elements.
// B's rows are packed once for all of C's columns and all lanes (each position's lanes read at
// once, whole cache lines in memory order), into one panel per vector of W lanes that every
// thread reads. A task then takes a block of up to kMc (lanes_panels.hpp) of C's rows (and a range
// of columns when rows are few): it packs A's block for all lanes, and computes one vector of lanes
// at a time: Kc inner indices at a time, a register tile of Mr x Nr vectors sums over them, keeping
// partial sums in a panel of its own (one vector's, which stays in L2) between blocks, and writes
// C's tile once at the end, fetching B's next column tile a few lines per row tile while it
// computes (B's panel comes back from memory for every block of rows). Packing pads partial vectors
// and edge tiles with zeros, so the register tile never branches; the writes touch only real
// elements. W, Mr and Nr are the register tile's geometry, and Kc its blocks of inner indices
// (lanes_tiles.hpp: AVX-512's or AVX2's), a template parameter L throughout.
#include "kernels/lanes_gemm.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "kernels/lanes_panels.hpp"
#include "kernels/lanes_tiles.hpp"
#include "kernels/parallel_for.hpp"
#include "kernels/stream_stores.hpp"

namespace tra::kernels::cpu {

namespace {

using lanes::TileFn;

constexpr std::int64_t kPackColumns = 64;  // columns of B packed per parallel item
// Panel bytes above which packing writes with non-temporal stores (stream_stores.hpp): a panel
// this large is read back from memory anyway (B's once per block of rows, A's vector by vector),
// so the stores need not read each line first (f64 64 lanes x 256^3 on one core of an EPYC:
// 0.064-0.067 -> 0.060-0.063 s; 8 and 16 lanes alike).
constexpr std::int64_t kStreamBytes = std::int64_t{4} << 20;

// Copies `valid` lanes from src to a W-lane slot, zeros the rest; past the caches if `stream`.
template <int W, class T>
inline void put_lanes(T* slot, const T* src, int valid, bool stream) {
    if (valid == W && stream) return stream_copy(slot, src, W);
    if (valid == W) {  // a constant size, which the compiler turns into vector moves
        std::memcpy(slot, src, sizeof(T) * W);
        return;
    }
    std::copy_n(src, valid, slot);
    std::fill(slot + valid, slot + W, T(0));
}

// rows x depth positions of a strided operand, `lanes` lanes each (`lane_stride` apart), into
// panels of `panel` elements, one per vector of lanes, each laid out [tile][p][r][W] in tiles of
// `tile` rows. The walk follows the source's memory order (its smaller stride innermost), and
// reads each position's lanes once: whole cache lines where the lanes are contiguous and fill
// them; lanes apart are gathered from lines the next positions read too. Whole vectors are
// written with non-temporal stores when `stream` (the caller fences).
template <int W, class T>
void pack(const T* x, std::int64_t row_stride, std::int64_t depth_stride, std::int64_t rows,
          std::int64_t depth, int tile, int lanes, std::int64_t lane_stride, std::int64_t panel,
          bool stream, T* out) {
    const int vectors = (lanes + W - 1) / W;
    const std::int64_t padded = (rows + tile - 1) / tile * tile;
    auto slot = [&](std::int64_t r, std::int64_t p, int v) {
        return out + v * panel + ((r / tile * depth + p) * tile + r % tile) * W;
    };
    auto put_vector = [&](std::int64_t r, std::int64_t p, int v) {
        T* dst = slot(r, p, v);
        const T* src = x + r * row_stride + p * depth_stride;
        const int valid = std::min(W, lanes - v * W);
        if (r >= rows) {
            std::fill(dst, dst + W, T(0));
        } else if (lane_stride == 1) {
            put_lanes<W>(dst, src + v * W, valid, stream);
        } else {
            T gathered[W];
            for (int l = 0; l < valid; ++l) gathered[l] = src[(v * W + l) * lane_stride];
            put_lanes<W>(dst, gathered, valid, stream);
        }
    };
    auto put = [&](std::int64_t r, std::int64_t p) {
        for (int v = 0; v < vectors; ++v) put_vector(r, p, v);
    };
    // Row r's inner indices from 0 in blocks of 8, transposed in registers where lanes apart
    // have their inner indices contiguous (attention's `shd` as heads; f64 on AVX-512): the
    // first inner index not packed.
    auto put_transposed = [&](std::int64_t r) -> std::int64_t {
        std::int64_t p = 0;
#ifdef TRA_LANES_X86
        if constexpr (std::is_same_v<T, double> && W == 8) {
            if (r >= rows || depth_stride != 1 || lane_stride == 1 || stream ||
                !lanes::cpu_has_avx512())
                return 0;
            for (; p + 8 <= depth; p += 8)
                for (int v = 0; v < vectors; ++v) {
                    if (lanes - v * W < W) {  // a partial vector
                        for (int q = 0; q < 8; ++q) put_vector(r, p + q, v);
                        continue;
                    }
                    lanes::transpose_8x8(x + r * row_stride + p + v * W * lane_stride, lane_stride,
                                         slot(r, p, v), tile * W);
                }
        }
#endif
        (void)r;
        return p;
    };
    if (row_stride > depth_stride)
        for (std::int64_t r = 0; r < padded; ++r)
            for (std::int64_t p = put_transposed(r); p < depth; ++p) put(r, p);
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

// Packs B's rows [q0, q0 + qn) for every column and lane, in items of Kc rows x kPackColumns
// columns spread over the threads.
template <class L, class T>
void pack_b(const LanesGemm& g, const T* b, std::int64_t q0, std::int64_t qn,
            const lanes::Panels<L, T>& sizes, int threads, T* bp) {
    constexpr int W = L::W;
    const std::int64_t padded_n = (g.n + L::Nr - 1) / L::Nr * L::Nr;
    const std::int64_t row_blocks = (qn + L::Kc - 1) / L::Kc;
    const std::int64_t col_blocks = (g.n + kPackColumns - 1) / kPackColumns;
    const bool stream = sizes.vectors * sizes.b * std::int64_t{sizeof(T)} > kStreamBytes;
    parallel_for_on(threads, row_blocks * col_blocks, 1, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t item = begin; item < end; ++item) {
            const std::int64_t p0 = item / col_blocks * L::Kc,
                               j0 = item % col_blocks * kPackColumns;
            const std::int64_t kc = std::min(L::Kc, qn - p0);
            pack<W>(b + (q0 + p0) * g.b_rows + j0 * g.b_cols, g.b_cols, g.b_rows,
                    std::min(kPackColumns, g.n - j0), kc, L::Nr, static_cast<int>(g.lanes),
                    g.b_lanes, sizes.b, stream, bp + (p0 * padded_n + j0 * kc) * W);
        }
        if (stream) store_fence();
    });
}

// Asks for lines [from, to) of `tile` to be fetched into the caches (a hint; never faults).
template <class T>
inline void prefetch_lines(const T* tile, std::int64_t from, std::int64_t to) {
    for (std::int64_t l = from; l < to; ++l)
        __builtin_prefetch(reinterpret_cast<const char*>(tile) + 64 * l);
}

// C's part of one task: rows [i0, i1) and columns [j0, j1), every lane, over B's packed rows
// [q0, q0 + qn); `ap` and `cp` are the task loop's A blocks and sums.
template <class L, class T>
void run_task(const LanesGemm& g, const T* a, const T* bp, T* c, bool accumulate, TileFn<T> tile,
              std::int64_t q0, std::int64_t qn, std::int64_t i0, std::int64_t i1, std::int64_t j0,
              std::int64_t j1, const lanes::Panels<L, T>& sizes, T* ap, T* cp) {
    constexpr int W = L::W, Mr = L::Mr, Nr = L::Nr;
    constexpr int kTile = Mr * Nr * W;
    const std::int64_t padded_n = (g.n + Nr - 1) / Nr * Nr;
    const std::int64_t mc = i1 - i0, row_tiles = (mc + Mr - 1) / Mr;
    const bool assign = q0 == 0 && !accumulate;
    const bool stream = sizes.vectors * sizes.a * std::int64_t{sizeof(T)} > kStreamBytes;
    // B's packed tile of vector v for the block of inner indices from p0 and columns from jt,
    // and its cache lines.
    auto b_tile = [&](std::int64_t v, std::int64_t p0, std::int64_t jt) {
        return bp + v * sizes.b + (p0 * padded_n + jt * std::min(L::Kc, qn - p0)) * W;
    };
    auto b_lines = [&](std::int64_t p0) {
        return Nr * std::min(L::Kc, qn - p0) * W * std::int64_t{sizeof(T)} / 64;
    };
    for (std::int64_t v = 0; v * W < g.lanes; ++v) {
        const int lanes = static_cast<int>(std::min<std::int64_t>(W, g.lanes - v * W));
        for (std::int64_t p0 = 0; p0 < qn; p0 += L::Kc) {
            const std::int64_t kc = std::min(L::Kc, qn - p0);
            const T* ab = ap + p0 * row_tiles * Mr * W;  // this block of every vector's A
            if (v == 0) {  // A's block for all lanes, read once, while the first vector uses it
                pack<W>(a + i0 * g.a_rows + (q0 + p0) * g.a_cols, g.a_rows, g.a_cols, mc, kc, Mr,
                        static_cast<int>(g.lanes), g.a_lanes, sizes.a, stream,
                        ap + p0 * row_tiles * Mr * W);
                if (stream) store_fence();
            }
            const bool last = p0 + L::Kc >= qn;
            for (std::int64_t jt = j0; jt < j1; jt += Nr) {
                // The tile of B that follows, in the order of these loops (none after the last).
                std::int64_t nv = v, np = p0, nj = jt + Nr;
                if (nj >= j1) nj = j0, np += L::Kc;
                if (np >= qn) np = 0, ++nv;
                const T* next = nv * W < g.lanes ? b_tile(nv, np, nj) : nullptr;
                const std::int64_t lines = next ? b_lines(np) : 0;
                const std::int64_t share = (lines + row_tiles - 1) / row_tiles;
                for (std::int64_t it = 0; it < row_tiles; ++it) {
                    T* sums = cp + ((jt - j0) / Nr * row_tiles + it) * kTile;
                    T* out = c + (i0 + it * Mr) * g.c_rows + jt * g.c_cols + v * W;
                    const std::int64_t rows = std::min<std::int64_t>(Mr, mc - it * Mr),
                                       cols = std::min<std::int64_t>(Nr, j1 - jt);
                    if (last)  // C's lines arrive while the tile computes
                        for (std::int64_t r = 0; r < rows; ++r)
                            for (std::int64_t j = 0; j < cols; ++j)
                                __builtin_prefetch(out + r * g.c_rows + j * g.c_cols, 1);
                    // B's next tile, a share of its lines per row tile: its first row tile
                    // would otherwise wait for all of it from memory
                    prefetch_lines(next, it * share, std::min(lines, (it + 1) * share));
                    tile(kc, ab + v * sizes.a + it * Mr * kc * W, b_tile(v, p0, jt), sums, p0 > 0);
                    if (last)  // the sums over all of B's packed rows, while in L1
                        write_tile<L>(out, g.c_rows, g.c_cols, sums, rows, cols, lanes, assign);
                }
            }
        }
    }
}

// Runs the product: for each group of lanes and each part of the inner indices, B's packed
// rows, then the tasks of TaskGrid.
template <class L, class T>
void run_tasks(const LanesGemm& g, const T* a, const T* b, T* c, bool accumulate, TileFn<T> tile) {
    const lanes::TaskGrid<L, T> grid(g, kernel_threads());
    const std::int64_t rows = grid.rows, blocks = grid.blocks, splits = grid.splits,
                       span = grid.span;
    const lanes::Panels<L, T>& sizes = grid.sizes;
    const std::int64_t group = sizes.vectors * L::W;
    T* bp = lanes::panel_scratch<T>(grid.scratch_elements());
    T* loop_scratch = bp + sizes.vectors * sizes.b;
    for (std::int64_t l0 = 0; l0 < g.lanes; l0 += group) {
        LanesGemm part = g;  // this group's lanes, from lane l0 of every operand
        part.lanes = std::min(group, g.lanes - l0);
        for (std::int64_t q0 = 0; q0 < g.k; q0 += sizes.depth) {
            const std::int64_t qn = std::min(sizes.depth, g.k - q0);
            pack_b<L>(part, b + l0 * g.b_lanes, q0, qn, sizes, static_cast<int>(grid.threads), bp);
            std::atomic<std::int64_t> next_loop{0};
            parallel_for_on(
                static_cast<int>(grid.threads), blocks * splits, 1,
                [&](std::int64_t begin, std::int64_t end) {
                    T* ap = loop_scratch + next_loop++ * sizes.per_loop();
                    T* cp = ap + sizes.vectors * sizes.a;
                    for (std::int64_t t = begin; t < end; ++t) {
                        const std::int64_t j0 = (t % splits) * span, j1 = std::min(g.n, j0 + span);
                        const std::int64_t i0 = (t / splits) * rows, i1 = std::min(g.m, i0 + rows);
                        if (j0 < j1)
                            run_task<L>(part, a + l0 * g.a_lanes, bp, c + l0, accumulate, tile, q0,
                                        qn, i0, i1, j0, j1, sizes, ap, cp);
                    }
                });
        }
    }
}

// Calls run(L{}, tile) with the register tile's geometry L and kernel that `isa` picks on this
// CPU: one choice for the product and for the scratch it reports taking.
template <class T, class Run>
auto on_isa(LanesIsa isa, Run&& run) {
#ifdef TRA_LANES_X86
    if (isa == LanesIsa::best && lanes::cpu_has_avx512())
        return run(lanes::Wide<T>{}, TileFn<T>{lanes::tile_avx512<T>});
    if (isa == LanesIsa::best && lanes::cpu_has_avx2())
        return run(lanes::Narrow<T>{}, TileFn<T>{lanes::tile_avx2<T>});
#endif
    (void)isa;
    return run(lanes::Narrow<T>{}, TileFn<T>{lanes::tile_portable<T, lanes::Narrow<T>>});
}

}  // namespace

template <class T>
std::int64_t lanes_gemm_scratch_bytes(const LanesGemm& g, int threads, LanesIsa isa) {
    if (g.m == 0 || g.n == 0 || g.lanes == 0 || g.k == 0) return 0;
    const std::int64_t elements = on_isa<T>(isa, [&](auto geometry, TileFn<T>) {
        return lanes::TaskGrid<decltype(geometry), T>(g, threads).scratch_elements();
    });
    // panel_scratch's alignment slack
    return (elements + 64 / std::int64_t{sizeof(T)}) * std::int64_t{sizeof(T)};
}

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
    on_isa<T>(isa, [&](auto geometry, TileFn<T> tile) {
        run_tasks<decltype(geometry)>(g, a, b, c, accumulate, tile);
    });
}

template std::int64_t lanes_gemm_scratch_bytes<float>(const LanesGemm&, int, LanesIsa);
template std::int64_t lanes_gemm_scratch_bytes<double>(const LanesGemm&, int, LanesIsa);
template void lanes_gemm<float>(const LanesGemm&, const float*, const float*, float*, bool,
                                LanesIsa);
template void lanes_gemm<double>(const LanesGemm&, const double*, const double*, double*, bool,
                                 LanesIsa);

}  // namespace tra::kernels::cpu
