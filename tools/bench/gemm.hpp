// One row-major OpenBLAS gemm, C = A B + beta C, in either element type the baselines run in
// (sgemm for float, dgemm for double).
#pragma once

#include <cblas.h>

#include <cstdint>
#include <type_traits>

namespace tra::bench {

template <typename T>
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, std::int64_t lda, const T* b,
          std::int64_t ldb, T beta, T* c, std::int64_t ldc) {
    const auto i = [](std::int64_t v) { return static_cast<int>(v); };
    if constexpr (std::is_same_v<T, float>)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, i(m), i(n), i(k), 1.0f, a, i(lda), b,
                    i(ldb), beta, c, i(ldc));
    else
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, i(m), i(n), i(k), 1.0, a, i(lda), b,
                    i(ldb), beta, c, i(ldc));
}

}  // namespace tra::bench
