// The four matrix products on cuBLAS. cuBLAS is column-major; a row-major C = op(A) op(B) is the
// column-major C^T = op(B)^T op(A)^T, so the operands swap places and no data moves.
#include <climits>
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
          const T* b, T* c) {
    if (m == 0 || n == 0) return;
    if (k == 0) {  // an empty sum; the output tile is already zero-filled
        check(cudaMemset(c, 0, static_cast<std::size_t>(m * n) * sizeof(T)), "cudaMemset");
        return;
    }
    const int bm = blas_extent(m), bn = blas_extent(n), bk = blas_extent(k);
    const cublasOperation_t ta = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t tb = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int lda = trans_a ? bm : bk;
    const int ldb = trans_b ? bk : bn;
    const T one = 1, zero = 0;
    if constexpr (std::is_same_v<T, float>)
        check(cublasSgemm(blas_handle(), tb, ta, bn, bm, bk, &one, b, ldb, a, lda, &zero, c, bn),
              "cublasSgemm");
    else
        check(cublasDgemm(blas_handle(), tb, ta, bn, bm, bk, &one, b, ldb, a, lda, &zero, c, bn),
              "cublasDgemm");
}

template void gemm<float>(bool, bool, std::int64_t, std::int64_t, std::int64_t, const float*,
                          const float*, float*);
template void gemm<double>(bool, bool, std::int64_t, std::int64_t, std::int64_t, const double*,
                           const double*, double*);

Kernel::Apply product_apply(const Kernel& kernel) {
    const std::string& name = kernel.name;
    if (name != "matmul" && name != "matmul_tn" && name != "matmul_nt" && name != "matmul_tt")
        return {};
    const bool trans_a = name == "matmul_tn" || name == "matmul_tt";
    const bool trans_b = name == "matmul_nt" || name == "matmul_tt";
    return [kernel, trans_a, trans_b](std::span<const Tile* const> ops, const KernelParams& p,
                                      const TilePosition&) {
        DType d;
        Tile out = device_output(kernel, ops, p, d);
        const std::int64_t inner = trans_a ? ops[0]->shape()[0] : ops[0]->shape()[1];
        visit_dtype(d, [&](auto t) {
            using T = decltype(t);
            gemm<T>(trans_a, trans_b, out.shape()[0], out.shape()[1], inner,
                    ops[0]->device_data<T>(), ops[1]->device_data<T>(), out.device_data<T>());
        });
        return out;
    };
}

}  // namespace tra::kernels::cuda
