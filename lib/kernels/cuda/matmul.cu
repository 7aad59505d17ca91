// The four matrix products on cuBLAS, and batched and accumulating gemm for einsum. cuBLAS is
// column-major; a row-major C = op(A) op(B) is the column-major C^T = op(B)^T op(A)^T, so the
// operands swap places and no data moves.
#include <climits>
#include <optional>
#include <string>
#include <type_traits>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_kernels.cuh"

namespace tra::kernels::cuda {

namespace {

int blas_extent(std::int64_t x) {
    if (x > INT_MAX)
        throw Error("matrix extent " + std::to_string(x) + " is too large for cuBLAS", {},
                    ErrorKind::Failed);
    return static_cast<int>(x);
}

}  // namespace

template <class T>
void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, const T* a,
          const T* b, T* c, bool accumulate, std::int64_t batch) {
    if (m == 0 || n == 0 || batch == 0) return;
    if (k == 0) {  // an empty sum: C stays as it is, or becomes zero
        if (!accumulate)
            check(cudaMemsetAsync(c, 0, static_cast<std::size_t>(batch * m * n) * sizeof(T),
                                  cudaStreamLegacy),
                  "cudaMemsetAsync");
        return;
    }
    const int bm = blas_extent(m), bn = blas_extent(n), bk = blas_extent(k);
    const int count = blas_extent(batch);
    const cublasOperation_t ta = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t tb = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int lda = trans_a ? bm : bk;
    const int ldb = trans_b ? bk : bn;
    const T one = 1, beta = accumulate ? 1 : 0;
    cublasHandle_t h = blas_handle();
    if (count == 1) {
        if constexpr (std::is_same_v<T, float>)
            check(cublasSgemm(h, tb, ta, bn, bm, bk, &one, b, ldb, a, lda, &beta, c, bn),
                  "cublasSgemm");
        else
            check(cublasDgemm(h, tb, ta, bn, bm, bk, &one, b, ldb, a, lda, &beta, c, bn),
                  "cublasDgemm");
        return;
    }
    // Batches are back to back: strides are whole blocks.
    const long long sa = m * k, sb = k * n, sc = m * n;
    if constexpr (std::is_same_v<T, float>)
        check(cublasSgemmStridedBatched(h, tb, ta, bn, bm, bk, &one, b, ldb, sb, a, lda, sa, &beta,
                                        c, bn, sc, count),
              "cublasSgemmStridedBatched");
    else
        check(cublasDgemmStridedBatched(h, tb, ta, bn, bm, bk, &one, b, ldb, sb, a, lda, sa, &beta,
                                        c, bn, sc, count),
              "cublasDgemmStridedBatched");
}

template void gemm<float>(bool, bool, std::int64_t, std::int64_t, std::int64_t, const float*,
                          const float*, float*, bool, std::int64_t);
template void gemm<double>(bool, bool, std::int64_t, std::int64_t, std::int64_t, const double*,
                           const double*, double*, bool, std::int64_t);

namespace {

struct Transposes {
    bool a = false, b = false;
};

// Which transposes a matrix-product kernel applies; nothing for other kernels.
std::optional<Transposes> transposes_of(const std::string& name) {
    if (name != "matmul" && name != "matmul_tn" && name != "matmul_nt" && name != "matmul_tt")
        return std::nullopt;
    return Transposes{name == "matmul_tn" || name == "matmul_tt",
                      name == "matmul_nt" || name == "matmul_tt"};
}

// out = (or +=) the product of the operands; out has the product's shape.
void multiply(Transposes t, std::span<const Tile* const> ops, Tile& out, bool accumulate) {
    const std::int64_t inner = t.a ? ops[0]->shape()[0] : ops[0]->shape()[1];
    visit_dtype(out.dtype(), [&](auto e) {
        using T = decltype(e);
        gemm<T>(t.a, t.b, out.shape()[0], out.shape()[1], inner, ops[0]->device_data<T>(),
                ops[1]->device_data<T>(), out.device_data<T>(), accumulate);
    });
}

}  // namespace

Kernel::Apply product_apply(const Kernel& kernel) {
    const std::optional<Transposes> t = transposes_of(kernel.name);
    if (!t) return {};
    return [kernel, t = *t](std::span<const Tile* const> ops, const KernelParams& p,
                            const TilePosition&) {
        DType d;
        Tile out = device_output(kernel, ops, p, d);
        multiply(t, ops, out, false);
        return out;
    };
}

Kernel::Accumulate product_accumulate(const Kernel& kernel) {
    const std::optional<Transposes> t = transposes_of(kernel.name);
    if (!t) return {};
    return [kernel, t = *t](Tile& acc, std::span<const Tile* const> ops, const KernelParams& p) {
        const std::vector<Shape> shapes = cpu::shapes_of(ops);
        const Checked<Shape> shape = kernel.output_shape(shapes, p);
        if (!shape || *shape != acc.shape()) return false;
        multiply(t, ops, acc, true);
        return true;
    };
}

}  // namespace tra::kernels::cuda
