#pragma once
// The dot product of the einsum kernel's 1 x k by k x 1 products (a row-wise "ne,ne->n"), which
// run without BLAS: a BLAS call would cost more than the few multiply-adds. One running sum waits
// on each addition before the next (4 cycles); four sums taken in turn ran einsum "ne,ne->n" on
// 3750 x 15 tiles at 35 us per call against 46 on one Xeon thread (docs/benchmarks.md, "Gemm
// rates at a workflow's own shapes", the paper workflows' rerun).
#include <cstdint>

namespace tra::kernels::cpu {

template <class T>
inline T four_sums(std::int64_t k, const T* a, std::int64_t sa, const T* b, std::int64_t sb) {
    T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    std::int64_t i = 0;
    for (; i + 4 <= k; i += 4) {
        s0 += a[i * sa] * b[i * sb];
        s1 += a[(i + 1) * sa] * b[(i + 1) * sb];
        s2 += a[(i + 2) * sa] * b[(i + 2) * sb];
        s3 += a[(i + 3) * sa] * b[(i + 3) * sb];
    }
    for (; i < k; ++i) s0 += a[i * sa] * b[i * sb];
    return (s0 + s1) + (s2 + s3);
}

// The dot product of k elements of a and b at strides sa and sb.
template <class T>
T short_dot(std::int64_t k, const T* a, std::int64_t sa, const T* b, std::int64_t sb) {
    // Unit strides spelled out, so the compiler may run the four sums as one vector's lanes:
    // the same sums either way.
    return sa == 1 && sb == 1 ? four_sums(k, a, 1, b, 1) : four_sums(k, a, sa, b, sb);
}

}  // namespace tra::kernels::cpu
