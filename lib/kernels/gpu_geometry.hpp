#pragma once
// How GPU work is shaped, as plain functions (no CUDA types), so the arithmetic is unit-tested on
// machines without a GPU: launch grids within CUDA's limits, and when a strided copy is one
// contiguous block. The CUDA backend (lib/kernels/cuda) launches and copies by these.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace tra::kernels::gpu_geometry {

constexpr int kThreads = 256;                   // threads per block of the 1-D kernels
constexpr std::int64_t kMaxGridY = 65535;       // CUDA's limit on gridDim.y (and .z)
constexpr std::int64_t kMaxGridX = 2147483647;  // on gridDim.x
constexpr int kTransposeSide = 32;              // transpose blocks: 32 x 32 elements

// Blocks for a grid-stride loop over n elements: enough to fill the GPU, at most 65,535 (the
// loops cover the rest), at least 1.
inline unsigned blocks_for(std::int64_t n) {
    const std::int64_t b = (n + kThreads - 1) / kThreads;
    return static_cast<unsigned>(std::clamp<std::int64_t>(b, 1, kMaxGridY));
}

// One block per row (row_sum, softmax_rows): the grid's x extent, or nothing when `rows` is past
// gridDim.x's limit.
inline std::optional<unsigned> blocks_per_row(std::int64_t rows) {
    if (rows > kMaxGridX) return std::nullopt;
    return static_cast<unsigned>(rows);
}

// col_sum's row chunks: 1 (each thread sums its column over all rows) when there are few rows
// or enough columns to fill the GPU; otherwise chunks of at least 64 rows, at most 65,535 of them
// (grid.y), each summed into a partial row that a second pass adds up. Without chunks, a tall
// narrow tile ran as a handful of threads each reading millions of rows in turn.
inline std::int64_t col_sum_chunks(std::int64_t rows, std::int64_t cols) {
    constexpr std::int64_t kMinChunkRows = 64, kEnoughColumns = 65536;
    if (rows <= kMinChunkRows || cols >= kEnoughColumns) return 1;
    const std::int64_t by_size = (rows + kMinChunkRows - 1) / kMinChunkRows;
    return std::min(by_size, kMaxGridY);
}

// Rows per chunk for `chunks` chunks of `rows` rows (the last may be shorter).
inline std::int64_t chunk_rows(std::int64_t rows, std::int64_t chunks) {
    return (rows + chunks - 1) / chunks;
}

struct Grid2 {
    unsigned x = 1, y = 1;
};

// transpose's grid: 32-column blocks on x, 32-row blocks on y capped at 65,535; the kernel
// strides over the remaining row blocks (rounds = ceil(row blocks / y)). Nothing when the
// columns are past gridDim.x's limit.
inline std::optional<Grid2> transpose_grid(std::int64_t rows, std::int64_t cols) {
    const std::int64_t col_blocks = (cols + kTransposeSide - 1) / kTransposeSide;
    const std::int64_t row_blocks = (rows + kTransposeSide - 1) / kTransposeSide;
    if (col_blocks > kMaxGridX) return std::nullopt;
    return Grid2{static_cast<unsigned>(std::max<std::int64_t>(col_blocks, 1)),
                 static_cast<unsigned>(std::clamp<std::int64_t>(row_blocks, 1, kMaxGridY))};
}

// Whether `rows` rows of `row_bytes`, at these pitches, are one contiguous block of
// rows * row_bytes bytes: then one plain copy moves them (cudaMemcpy2D refuses pitches past
// the device's maximum, about 2 GiB, which a single-row copy of a large tile has).
inline bool contiguous_rows(std::size_t dst_pitch, std::size_t src_pitch, std::size_t row_bytes,
                            std::size_t rows) {
    return rows <= 1 || (dst_pitch == row_bytes && src_pitch == row_bytes);
}

}  // namespace tra::kernels::gpu_geometry
