// The permute walks the output in order and reads the input at strides. Where the output's
// innermost dimension is also the input's, each step copies a contiguous run; otherwise the two
// innermost dimensions (the input's, p, and the output's, q) are transposed in blocks. The
// outer dimensions and p's blocks are split among kernel_threads() threads (parallel_for): each
// output element is written by one thread with the same value, so the result does not depend on
// the thread count.
#include "kernels/tile_permute.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/error.hpp"
#include "kernels/parallel_for.hpp"
#include "kernels/stream_stores.hpp"
#include "kernels/transpose_rows.hpp"

namespace tra::kernels {

namespace {

// Output bytes from which the block transpose writes with non-temporal stores. An output this
// large leaves the caches before anything reads it (einsum's GEMM packs it block by block), so
// the stores skip reading each line before overwriting it: a third of the permute's memory
// traffic (an f64 64 x 65536 transpose ran 1.7x faster). Smaller outputs stay cached for the
// GEMM that reads them next. Only where a block writes long runs, though (transpose_blocks).
constexpr std::int64_t kStreamBytes = std::int64_t(8) << 20;

// dst[j] = src[j * stride] for j < n, the 16-byte-aligned part with non-temporal stores when
// `stream` (callers sfence before others read dst); a copy, so the values are the same.
template <class T>
void store_row(T* dst, const T* src, std::int64_t stride, std::int64_t n, bool stream) {
    std::int64_t j = 0;
#if defined(__SSE2__)
    constexpr std::int64_t lanes = 16 / sizeof(T);
    if (stream) {
        for (; j < n && (reinterpret_cast<std::uintptr_t>(dst + j) & 15) != 0; ++j)
            dst[j] = src[j * stride];
        if (stride == 1) {
            const std::int64_t whole = (n - j) / lanes * lanes;
            stream_copy(dst + j, src + j, static_cast<int>(whole));
            j += whole;
        }
        for (; j + lanes <= n; j += lanes) {
            const T* s = src + j * stride;
            if constexpr (sizeof(T) == 8)
                _mm_stream_pd(reinterpret_cast<double*>(dst + j), _mm_set_pd(s[stride], s[0]));
            else
                _mm_stream_ps(reinterpret_cast<float*>(dst + j),
                              _mm_set_ps(s[3 * stride], s[2 * stride], s[stride], s[0]));
        }
    }
#else
    (void)stream;
#endif
    if (stride == 1)
        std::copy(src + j, src + n, dst + j);
    else
        for (; j < n; ++j) dst[j] = src[j * stride];
}

// One dimension of the walk, in output order: its extent and its strides in elements.
struct Dim {
    std::int64_t extent, from, to;
};

// The output's dimensions with their input strides, without extent-1 dimensions and with
// neighbours that are neighbours in the input too merged into one, so the walk has few levels.
std::vector<Dim> walk_dims(const Shape& shape, std::span<const std::size_t> perm) {
    const std::size_t rank = shape.size();
    if (perm.size() != rank) throw Error("permute: perm has the wrong rank");
    std::vector<std::int64_t> in_stride(rank, 1);
    for (std::size_t d = rank; d-- > 1;) in_stride[d - 1] = in_stride[d] * shape[d];
    std::vector<Dim> dims(rank);
    std::vector<bool> seen(rank, false);
    for (std::size_t d = 0; d < rank; ++d) {
        if (perm[d] >= rank || seen[perm[d]]) throw Error("permute: perm is no permutation");
        seen[perm[d]] = true;
        dims[d] = {shape[perm[d]], in_stride[perm[d]], 0};
    }
    std::int64_t s = 1;
    for (std::size_t d = rank; d-- > 0;) {
        dims[d].to = s;
        s *= dims[d].extent;
    }
    std::vector<Dim> merged;
    for (const Dim& d : dims) {
        if (d.extent == 1) continue;
        if (!merged.empty() && merged.back().from == d.from * d.extent) {
            merged.back() = {merged.back().extent * d.extent, d.from, d.to};
            continue;
        }
        merged.push_back(d);
    }
    return merged;
}

// The input and output offsets of the indices of `dims` from flat index `first` on (row-major
// over dims), one step at a time: an odometer that a thread starts in the middle of the walk.
class Walk {
  public:
    Walk(const std::vector<Dim>& dims, std::int64_t first) : dims_(dims), idx_(dims.size()) {
        for (std::size_t d = dims.size(); d-- > 0;) {
            idx_[d] = first % dims[d].extent;
            first /= dims[d].extent;
            from += idx_[d] * dims[d].from;
            to += idx_[d] * dims[d].to;
        }
    }
    void next() {
        for (std::size_t d = dims_.size(); d-- > 0;) {
            from += dims_[d].from, to += dims_[d].to;
            if (++idx_[d] < dims_[d].extent) return;
            from -= dims_[d].from * idx_[d], to -= dims_[d].to * idx_[d];
            idx_[d] = 0;
        }
    }
    std::int64_t from = 0, to = 0;

  private:
    const std::vector<Dim>& dims_;
    std::vector<std::int64_t> idx_;
};

std::int64_t count(const std::vector<Dim>& dims) {
    std::int64_t n = 1;
    for (const Dim& d : dims) n *= d.extent;
    return n;
}

template <class T>
void copy_runs(const T* in, T* out, const std::vector<Dim>& outer, std::int64_t run,
               bool accumulate) {
    const std::int64_t grain = std::max<std::int64_t>(1, kGrainElements / run);
    parallel_for(count(outer), grain, [&](std::int64_t begin, std::int64_t end) {
        Walk w(outer, begin);
        for (std::int64_t i = begin; i < end; ++i, w.next()) {
            const T* src = in + w.from;
            T* dst = out + w.to;
            if (accumulate)
                for (std::int64_t e = 0; e < run; ++e) dst[e] += src[e];
            else
                std::copy(src, src + run, dst);
        }
    });
}

// The offsets of a block's rows on one side of the transpose: the input's rows along q, or the
// output's rows along p. Either may be two tile dimensions that are contiguous together on the
// other side, the inner one (`inner_extent` rows at `inner_stride`) inside the outer (at
// `outer_stride`; 0: one dimension).
struct SplitRows {
    std::int64_t inner_extent, inner_stride, outer_stride;
    std::int64_t offset(std::int64_t j) const {
        return outer_stride == 0
                   ? j * inner_stride
                   : j / inner_extent * outer_stride + j % inner_extent * inner_stride;
    }
};

// Transposes an np x nq block: out[out_rows.offset(p0 + i) + j] (+)= in[in_rows.offset(q0 + j) +
// i], through a buffer (72 KiB for f64, in L2) in one of two ways. Where the input's rows lie
// far apart, they are gathered transposed into it in registers, a few rows side by side, each
// read whole (512 bytes) in turn (transpose_rows.hpp), and its rows written out as the output's
// runs of up to 128 elements. Where they follow each other (the block is one run of memory, a
// batch innermost in the input moved outwards), the run is copied into it row by row and its
// columns written out element by element: read in one pass, that ran 1.2-1.4x faster from memory
// than the register transpose (f64 [512][512][16] -> [16][512][512]), which is 1.3-2x faster on
// cached data and where rows lie apart (f64 [256][256][64] -> [64][256][256] 1.2-1.5x). Narrow
// blocks of such a run (one line along p) directly, element by element, kNarrowCols along q.
// Either way every cache line moves in one burst and power-of-two strides (cache-set conflicts
// between a block's rows) do not matter; the buffer's rows are padded by a line for the same
// reason. Output runs of 128 elements rather than 32 made large transposes 1.4-1.7x faster (f64
// [65536][64] -> [64][65536] 7.4 -> 4.5 ms, 2048^2 9.4 -> 5.6 ms on one core): fewer, longer
// write streams at a time.
template <class T>
struct BlockTranspose {
    static constexpr std::int64_t kRows = 512 / sizeof(T);   // along p, read contiguously
    static constexpr std::int64_t kCols = 128;               // along q, written contiguously
    static constexpr std::int64_t kNarrow = 64 / sizeof(T);  // one line (two: 1.25x slower)
    static constexpr std::int64_t kNarrowCols = 32;          // q per narrow block (more ran slower)
    static constexpr std::int64_t kChunkCols = 32 * kCols;   // q per item of the parallel loop
    static constexpr std::int64_t kPad = 64 / sizeof(T);
    static constexpr std::int64_t kTransposedStride = kCols + kPad;  // rows along q
    static constexpr std::int64_t kCopiedStride = kRows + kPad;      // rows along p
    alignas(64) T buffer[kCols * kCopiedStride];                     // the larger of the two
    bool stream = false;    // write output rows with non-temporal stores (kStreamBytes)
    bool adjacent = false;  // the input's rows follow each other

    // The block's extent along q for np along p.
    std::int64_t cols(std::int64_t np) const {
        return adjacent && np <= kNarrow ? kNarrowCols : kCols;
    }

    // Rows q0 .. q0 + nq - 1 of the input (along q) start at in + in_rows.offset(j), rows
    // p0 .. p0 + np - 1 of the output (along p) at out + out_rows.offset(i).
    void operator()(const T* in, const SplitRows& in_rows, std::int64_t q0, T* out,
                    const SplitRows& out_rows, std::int64_t p0, std::int64_t np, std::int64_t nq,
                    bool accumulate) {
        const T* row[kCols];
        for (std::int64_t j = 0; j < nq; ++j) row[j] = in + in_rows.offset(q0 + j);
        if (!adjacent) {
            static_assert(kRows * kTransposedStride <= kCols * kCopiedStride);
            transpose_rows(row, nq, np, buffer, kTransposedStride);
            for (std::int64_t i = 0; i < np; ++i)
                write_run(out + out_rows.offset(p0 + i), buffer + i * kTransposedStride, 1, nq,
                          accumulate);
        } else if (np <= kNarrow) {
            for (std::int64_t i = 0; i < np; ++i) {
                T* dst = out + out_rows.offset(p0 + i);
                if (accumulate)
                    for (std::int64_t j = 0; j < nq; ++j) dst[j] += row[j][i];
                else
                    for (std::int64_t j = 0; j < nq; ++j) dst[j] = row[j][i];
            }
        } else {
            for (std::int64_t j = 0; j < nq; ++j)
                std::copy(row[j], row[j] + np, buffer + j * kCopiedStride);
            for (std::int64_t i = 0; i < np; ++i)
                write_run(out + out_rows.offset(p0 + i), buffer + i, kCopiedStride, nq, accumulate);
        }
    }

    // dst[j] (+)= src[j * stride] for j < n.
    void write_run(T* dst, const T* src, std::int64_t stride, std::int64_t n, bool accumulate) {
        if (accumulate)
            for (std::int64_t j = 0; j < n; ++j) dst[j] += src[j * stride];
        else
            store_row(dst, src, stride, n, stream);
    }
};

template <class T>
void transpose_blocks(const T* in, T* out, std::vector<Dim> outer, Dim p, Dim q, bool accumulate) {
    using Block = BlockTranspose<T>;
    // A narrow q (a batch of 8 innermost in the output, a label of 32) takes in the output
    // dimension around it when the two are contiguous together there: each block then writes
    // runs of kCols or more per output row, not q.extent (short runs at a large stride ran at
    // half the speed; f64 `cadb->abcd`, every label 32, 1.3-1.6x faster with runs of 128, not 32).
    SplitRows in_rows{q.extent, q.from, 0};
    if (q.extent < Block::kCols && !outer.empty() && outer.back().to == q.extent) {
        in_rows.outer_stride = outer.back().from;
        q.extent *= outer.back().extent;
        outer.pop_back();
    }
    // Likewise a narrow p (a batch of 8 or 16 innermost in the input) takes in the input
    // dimension around it: each block then reads runs of kRows elements per input row, not
    // p.extent (16-element reads at a 64 KiB stride ran 2.2x slower: f64 [512][512][16] ->
    // [16][512][512] 12.2 -> 5.6 ms).
    SplitRows out_rows{p.extent, p.to, 0};
    const auto around =
        std::find_if(outer.begin(), outer.end(), [&](const Dim& d) { return d.from == p.extent; });
    if (p.extent < Block::kRows && around != outer.end()) {
        out_rows.outer_stride = around->to;
        p.extent *= around->extent;
        outer.erase(around);
    }
    // Non-temporal stores pay where a block's output rows are whole runs of kCols elements or
    // follow each other in the output; rows of 32 f64 at a stride (`cadb->abcd`, all 32: a block
    // writes 32 runs of 256 bytes 8 KiB apart) ran 1.6x slower with them than through the caches.
    const bool long_runs = q.extent >= Block::kCols || out_rows.inner_stride == q.extent;
    const std::int64_t p_blocks = (p.extent + Block::kRows - 1) / Block::kRows;
    const std::int64_t q_chunks = (q.extent + Block::kChunkCols - 1) / Block::kChunkCols;
    // Items: (outer index, block of p, chunk of q), each a strip of up to kRows x kChunkCols
    // elements, q innermost: one thread walks q in order as a whole transpose does. Chunks of q
    // let threads share a transpose with no outer dimension (f64 [65536][64] -> [64][65536], the
    // permute of a batch of 64 innermost, ran on one thread of two).
    const std::int64_t per_outer = p_blocks * q_chunks;
    const std::int64_t strip =
        std::min(p.extent, Block::kRows) * std::min(q.extent, Block::kChunkCols);
    const std::int64_t grain = std::max<std::int64_t>(1, kGrainElements / strip);
    // A block's input rows follow each other where q's rows are p.extent apart and p fits one
    // block (each block then one run of np x nq elements).
    const bool adjacent =
        in_rows.outer_stride == 0 && in_rows.inner_stride == p.extent && p.extent <= Block::kRows;
    parallel_for(count(outer) * per_outer, grain, [&](std::int64_t begin, std::int64_t end) {
        std::unique_ptr<Block> block(new Block);  // not value-initialised: no zeroing
        block->adjacent = adjacent;
        block->stream = !accumulate && long_runs &&
                        count(outer) * p.extent * q.extent * static_cast<std::int64_t>(sizeof(T)) >=
                            kStreamBytes;
        Walk w(outer, begin / per_outer);
        for (std::int64_t item = begin; item < end; ++item) {
            const std::int64_t within = item % per_outer;
            if (item != begin && within == 0) w.next();
            const std::int64_t p0 = within / q_chunks * Block::kRows;
            const std::int64_t np = std::min(Block::kRows, p.extent - p0);
            const std::int64_t q_begin = within % q_chunks * Block::kChunkCols;
            const std::int64_t q_end = std::min(q.extent, q_begin + Block::kChunkCols);
            const std::int64_t step = block->cols(np);
            for (std::int64_t q0 = q_begin; q0 < q_end; q0 += step)
                (*block)(in + w.from + p0, in_rows, q0, out + w.to + q0, out_rows, p0, np,
                         std::min(step, q_end - q0), accumulate);
        }
        if (block->stream) store_fence();
    });
}

}  // namespace

template <class T>
void permute(const T* in, const Shape& shape, std::span<const std::size_t> perm, T* out,
             bool accumulate) {
    std::vector<Dim> dims = walk_dims(shape, perm);
    if (shape.product() == 0) return;
    if (dims.empty()) {  // one element
        out[0] = accumulate ? out[0] + in[0] : in[0];
        return;
    }
    const Dim inner = dims.back();  // contiguous in the output
    dims.pop_back();
    if (inner.from == 1) {  // and in the input: copy runs
        copy_runs(in, out, dims, inner.extent, accumulate);
        return;
    }
    // The input's contiguous dimension p is another one.
    const auto p_at =
        std::find_if(dims.begin(), dims.end(), [](const Dim& d) { return d.from == 1; });
    const Dim p = *p_at;
    dims.erase(p_at);
    transpose_blocks(in, out, dims, p, inner, accumulate);
}

template void permute<float>(const float*, const Shape&, std::span<const std::size_t>, float*,
                             bool);
template void permute<double>(const double*, const Shape&, std::span<const std::size_t>, double*,
                              bool);

Tile permute_tile(const Tile& tile, std::span<const std::size_t> perm) {
    if (perm.size() != tile.shape().size()) throw Error("permute: perm has the wrong rank");
    Shape shape;
    for (std::size_t d : perm) shape.push_back(tile.shape()[std::min(d, perm.size() - 1)]);
    Tile out = Tile::uninitialized(tile.dtype(), shape);
    visit_dtype(tile.dtype(), [&](auto t) {
        using T = decltype(t);
        permute<T>(tile.data<T>(), tile.shape(), perm, out.data<T>());
    });
    return out;
}

}  // namespace tra::kernels
