// Against copying the rows into a buffer and reading its columns element by element (the block
// transpose before): f64 transposes of cached data 1.5-1.6x faster, f32 2.3-2.9x, permutes from
// memory whose rows lie far apart 1.2-1.7x (f64 [256][256][64] -> [64][256][256], 32 MiB, 1.25-
// 1.5x on one and two cores; docs/benchmarks.md, "Permutes transpose in registers").
#include "kernels/transpose_rows.hpp"

#include "kernels/cpu_features.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TRA_TRANSPOSE_X86 1
#endif

namespace tra::kernels {

namespace {

// The part [j0, j1) x [i0, i1) element by element: the edges the register transposes leave.
template <class T>
void transpose_elements(const T* const* rows, std::int64_t j0, std::int64_t j1, std::int64_t i0,
                        std::int64_t i1, T* buf, std::int64_t ld) {
    for (std::int64_t j = j0; j < j1; ++j)
        for (std::int64_t i = i0; i < i1; ++i) buf[i * ld + j] = rows[j][i];
}

#ifdef TRA_TRANSPOSE_X86
#define TRA_TRANSPOSE_AVX2 __attribute__((target("avx2")))

// 4 x 4 doubles: rows j .. j+3 at i .. i+3 become buf's rows i .. i+3 at j .. j+3.
TRA_TRANSPOSE_AVX2 void transpose_avx2(const double* const* rows, std::int64_t nq, std::int64_t np,
                                       double* buf, std::int64_t ld) {
    const std::int64_t nq4 = nq / 4 * 4, np4 = np / 4 * 4;
    for (std::int64_t j = 0; j < nq4; j += 4) {
        const double *r0 = rows[j], *r1 = rows[j + 1], *r2 = rows[j + 2], *r3 = rows[j + 3];
        for (std::int64_t i = 0; i < np4; i += 4) {
            const __m256d a = _mm256_loadu_pd(r0 + i), b = _mm256_loadu_pd(r1 + i);
            const __m256d c = _mm256_loadu_pd(r2 + i), d = _mm256_loadu_pd(r3 + i);
            // ab_even = a0 b0 a2 b2, ab_odd = a1 b1 a3 b3, likewise for c and d.
            const __m256d ab_even = _mm256_unpacklo_pd(a, b), ab_odd = _mm256_unpackhi_pd(a, b);
            const __m256d cd_even = _mm256_unpacklo_pd(c, d), cd_odd = _mm256_unpackhi_pd(c, d);
            double* o = buf + i * ld + j;
            _mm256_storeu_pd(o, _mm256_permute2f128_pd(ab_even, cd_even, 0x20));
            _mm256_storeu_pd(o + ld, _mm256_permute2f128_pd(ab_odd, cd_odd, 0x20));
            _mm256_storeu_pd(o + 2 * ld, _mm256_permute2f128_pd(ab_even, cd_even, 0x31));
            _mm256_storeu_pd(o + 3 * ld, _mm256_permute2f128_pd(ab_odd, cd_odd, 0x31));
        }
    }
    transpose_elements(rows, 0, nq4, np4, np, buf, ld);
    transpose_elements(rows, nq4, nq, 0, np, buf, ld);
}

// 8 x 8 floats, the same in three steps: pairs, quadruples, halves.
TRA_TRANSPOSE_AVX2 void transpose_avx2(const float* const* rows, std::int64_t nq, std::int64_t np,
                                       float* buf, std::int64_t ld) {
    const std::int64_t nq8 = nq / 8 * 8, np8 = np / 8 * 8;
    for (std::int64_t j = 0; j < nq8; j += 8) {
        for (std::int64_t i = 0; i < np8; i += 8) {
            __m256 r[8], pair[8], quad[8];
            for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(rows[j + k] + i);
            for (int k = 0; k < 8; k += 2) {
                pair[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
                pair[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
            }
            for (int k = 0; k < 8; k += 4) {
                quad[k] = _mm256_shuffle_ps(pair[k], pair[k + 2], _MM_SHUFFLE(1, 0, 1, 0));
                quad[k + 1] = _mm256_shuffle_ps(pair[k], pair[k + 2], _MM_SHUFFLE(3, 2, 3, 2));
                quad[k + 2] = _mm256_shuffle_ps(pair[k + 1], pair[k + 3], _MM_SHUFFLE(1, 0, 1, 0));
                quad[k + 3] = _mm256_shuffle_ps(pair[k + 1], pair[k + 3], _MM_SHUFFLE(3, 2, 3, 2));
            }
            float* o = buf + i * ld + j;
            for (int k = 0; k < 4; ++k) {
                _mm256_storeu_ps(o + k * ld, _mm256_permute2f128_ps(quad[k], quad[k + 4], 0x20));
                _mm256_storeu_ps(o + (k + 4) * ld,
                                 _mm256_permute2f128_ps(quad[k], quad[k + 4], 0x31));
            }
        }
    }
    transpose_elements(rows, 0, nq8, np8, np, buf, ld);
    transpose_elements(rows, nq8, nq, 0, np, buf, ld);
}

#endif

}  // namespace

template <class T>
void transpose_rows(const T* const* rows, std::int64_t nq, std::int64_t np, T* buf,
                    std::int64_t ld) {
#ifdef TRA_TRANSPOSE_X86
    if (cpu_features::avx2()) {
        transpose_avx2(rows, nq, np, buf, ld);
        return;
    }
#endif
    transpose_elements(rows, 0, nq, 0, np, buf, ld);
}

template void transpose_rows<float>(const float* const*, std::int64_t, std::int64_t, float*,
                                    std::int64_t);
template void transpose_rows<double>(const double* const*, std::int64_t, std::int64_t, double*,
                                     std::int64_t);

}  // namespace tra::kernels
