// row_sum, col_sum, softmax_rows, diag and transpose on the GPU. Row-wise work uses one block
// per row with a shared-memory tree, so wide rows are read by many threads at once.
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

constexpr int kSide = 32;  // transpose block: 32 x 32 elements, 32 x 8 threads

template <class T>
__global__ void transpose_kernel(const T* in, T* out, std::int64_t rows, std::int64_t cols) {
    // Staged through shared memory so both the reads and the writes are coalesced; the +1
    // column keeps the column reads free of bank conflicts.
    __shared__ T block[kSide][kSide + 1];
    const std::int64_t r0 = std::int64_t(blockIdx.y) * kSide, c0 = std::int64_t(blockIdx.x) * kSide;
    for (int dy = threadIdx.y; dy < kSide; dy += blockDim.y) {
        const std::int64_t r = r0 + dy, c = c0 + threadIdx.x;
        if (r < rows && c < cols) block[dy][threadIdx.x] = in[r * cols + c];
    }
    __syncthreads();
    for (int dy = threadIdx.y; dy < kSide; dy += blockDim.y) {
        const std::int64_t c = c0 + dy, r = r0 + threadIdx.x;
        if (r < rows && c < cols) out[c * rows + r] = block[threadIdx.x][dy];
    }
}

unsigned grid_extent(std::int64_t n, const char* what) {
    if (n > 2147483647)
        throw Error(std::string(what) + ": a tile of " + std::to_string(n) +
                        " rows is too large for one GPU launch",
                    {}, ErrorKind::Failed);
    return static_cast<unsigned>(n);
}

template <class T>
void launch(const std::string& name, const Tile& in, Tile& out) {
    const std::int64_t rows = in.shape()[0], cols = in.shape()[1];
    const T* x = in.device_data<T>();
    T* y = out.device_data<T>();
    if (rows == 0 || cols == 0) return;  // outputs start zero-filled, as the CPU's do
    if (name == "row_sum") {
        row_sum_kernel<<<grid_extent(rows, "row_sum"), kThreads>>>(x, y, cols);
    } else if (name == "col_sum") {
        col_sum_kernel<<<blocks_for(cols), kThreads>>>(x, y, rows, cols);
    } else if (name == "softmax_rows") {
        softmax_rows_kernel<<<grid_extent(rows, "softmax_rows"), kThreads>>>(x, y, cols);
    } else if (name == "diag") {
        diag_kernel<<<blocks_for(rows), kThreads>>>(x, y, rows);
    } else {
        dim3 threads(kSide, 8);
        dim3 grid(grid_extent((cols + kSide - 1) / kSide, "transpose"),
                  grid_extent((rows + kSide - 1) / kSide, "transpose"));
        if (grid.y > 65535)
            throw Error("transpose: a tile of " + std::to_string(rows) +
                            " rows is too large for one GPU launch",
                        {}, ErrorKind::Failed);
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
