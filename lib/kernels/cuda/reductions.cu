// row_sum, col_sum, softmax_rows, diag and transpose on the GPU. Row-wise work uses one block
// per row with a shared-memory tree, so wide rows are read by many threads at once.
#include <optional>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_kernels.cuh"
#include "kernels/cuda/device_scalar_ops.cuh"

namespace tra::kernels::cuda {

namespace {

// Combines the block's `value`s with op; every thread gets the result. kThreads is a power of 2.
template <class T, class Op>
__device__ T block_reduce(T value, Op op, T* shared) {
    shared[threadIdx.x] = value;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            shared[threadIdx.x] = op(shared[threadIdx.x], shared[threadIdx.x + half]);
        __syncthreads();
    }
    T result = shared[0];
    __syncthreads();  // shared may be reused by the caller's next reduction
    return result;
}

template <class T>
__global__ void row_sum_kernel(const T* in, T* out, std::int64_t cols) {
    __shared__ T shared[kThreads];
    const T* x = in + blockIdx.x * cols;
    T s = 0;
    for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += x[c];
    s = block_reduce(s, AddOp{}, shared);
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}

template <class T>
__global__ void col_sum_kernel(const T* in, T* out, std::int64_t rows, std::int64_t cols) {
    // One thread per column: neighbouring threads read neighbouring elements of each row.
    for (std::int64_t c = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; c < cols;
         c += std::int64_t(blockDim.x) * gridDim.x) {
        T s = 0;
        for (std::int64_t r = 0; r < rows; ++r) s += in[r * cols + c];
        out[c] = s;
    }
}

// Partial column sums of chunk blockIdx.y's rows [r0, r0 + chunk): partial[chunk][c].
template <class T>
__global__ void col_sum_chunk_kernel(const T* in, T* partial, std::int64_t rows, std::int64_t cols,
                                     std::int64_t chunk) {
    const std::int64_t r0 = std::int64_t(blockIdx.y) * chunk;
    const std::int64_t r1 = r0 + chunk < rows ? r0 + chunk : rows;
    for (std::int64_t c = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; c < cols;
         c += std::int64_t(blockDim.x) * gridDim.x) {
        T s = 0;
        for (std::int64_t r = r0; r < r1; ++r) s += in[r * cols + c];
        partial[std::int64_t(blockIdx.y) * cols + c] = s;
    }
}

template <class T>
__global__ void softmax_rows_kernel(const T* in, T* out, std::int64_t cols) {
    __shared__ T shared[kThreads];
    const T* x = in + blockIdx.x * cols;
    T* y = out + blockIdx.x * cols;
    // Subtracting the row maximum keeps exp from overflowing, as on the CPU.
    T mx = x[0];
    for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) mx = MaxOp{}(mx, x[c]);
    mx = block_reduce(mx, MaxOp{}, shared);
    T sum = 0;
    for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) sum += (y[c] = exp(x[c] - mx));
    sum = block_reduce(sum, AddOp{}, shared);
    for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) y[c] /= sum;
}

template <class T>
__global__ void diag_kernel(const T* in, T* out, std::int64_t n) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(blockDim.x) * gridDim.x)
        out[i] = in[i * n + i];
}

constexpr int kSide = gpu_geometry::kTransposeSide;  // 32 x 32 elements, 32 x 8 threads

template <class T>
__global__ void transpose_kernel(const T* in, T* out, std::int64_t rows, std::int64_t cols) {
    // Staged through shared memory so both the reads and the writes are coalesced; the +1
    // column keeps the column reads free of bank conflicts. Blocks of rows stride by gridDim.y:
    // grid.y is limited to 65,535, so a tile of more than about 2.1M rows takes several rounds.
    __shared__ T block[kSide][kSide + 1];
    const std::int64_t c0 = std::int64_t(blockIdx.x) * kSide;
    for (std::int64_t r0 = std::int64_t(blockIdx.y) * kSide; r0 < rows;
         r0 += std::int64_t(gridDim.y) * kSide) {
        for (int dy = threadIdx.y; dy < kSide; dy += blockDim.y) {
            const std::int64_t r = r0 + dy, c = c0 + threadIdx.x;
            if (r < rows && c < cols) block[dy][threadIdx.x] = in[r * cols + c];
        }
        __syncthreads();
        for (int dy = threadIdx.y; dy < kSide; dy += blockDim.y) {
            const std::int64_t c = c0 + dy, r = r0 + threadIdx.x;
            if (r < rows && c < cols) out[c * rows + r] = block[threadIdx.x][dy];
        }
        __syncthreads();  // the next round overwrites block
    }
}

// One block per row, or the reason there cannot be.
unsigned row_blocks(std::int64_t rows, const char* what) {
    if (const std::optional<unsigned> blocks = gpu_geometry::blocks_per_row(rows)) return *blocks;
    throw Error(std::string(what) + ": a tile of " + std::to_string(rows) +
                    " rows is too large for one GPU launch",
                {}, ErrorKind::Failed);
}

template <class T>
void launch(const std::string& name, const Tile& in, Tile& out) {
    const std::int64_t rows = in.shape()[0], cols = in.shape()[1];
    const T* x = in.device_data<T>();
    T* y = out.device_data<T>();
    if (rows == 0 || cols == 0) return;  // outputs start zero-filled, as the CPU's do
    if (name == "row_sum") {
        row_sum_kernel<<<row_blocks(rows, "row_sum"), kThreads>>>(x, y, cols);
    } else if (name == "col_sum") {
        const std::int64_t chunks = gpu_geometry::col_sum_chunks(rows, cols);
        if (chunks == 1) {
            col_sum_kernel<<<blocks_for(cols), kThreads>>>(x, y, rows, cols);
        } else {
            // Two passes, both in a fixed order: the result does not depend on scheduling.
            Tile partial(in.dtype(), Shape{chunks, cols}, Residence::Device);
            const dim3 grid(blocks_for(cols), static_cast<unsigned>(chunks));
            col_sum_chunk_kernel<<<grid, kThreads>>>(x, partial.device_data<T>(), rows, cols,
                                                     gpu_geometry::chunk_rows(rows, chunks));
            check_launch("col_sum");
            col_sum_kernel<<<blocks_for(cols), kThreads>>>(partial.device_data<T>(), y, chunks,
                                                           cols);
        }
    } else if (name == "softmax_rows") {
        softmax_rows_kernel<<<row_blocks(rows, "softmax_rows"), kThreads>>>(x, y, cols);
    } else if (name == "diag") {
        diag_kernel<<<blocks_for(rows), kThreads>>>(x, y, rows);
    } else {
        const std::optional<gpu_geometry::Grid2> g = gpu_geometry::transpose_grid(rows, cols);
        if (!g)
            throw Error("transpose: a tile of " + std::to_string(cols) +
                            " columns is too large for one GPU launch",
                        {}, ErrorKind::Failed);
        const dim3 threads(kSide, 8), grid(g->x, g->y);
        transpose_kernel<<<grid, threads>>>(x, y, rows, cols);
    }
    check_launch(name.c_str());
}

}  // namespace

Kernel::Apply reduction_apply(const Kernel& kernel) {
    const std::string& name = kernel.name;
    if (name != "row_sum" && name != "col_sum" && name != "softmax_rows" && name != "diag" &&
        name != "transpose")
        return {};
    return [kernel](std::span<const Tile* const> ops, const KernelParams& p, const TilePosition&) {
        DType d;
        Tile out = device_output(kernel, ops, p, d);
        visit_dtype(d, [&](auto t) { launch<decltype(t)>(kernel.name, *ops[0], out); });
        return out;
    };
}

}  // namespace tra::kernels::cuda
