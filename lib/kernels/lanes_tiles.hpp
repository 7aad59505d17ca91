#pragma once
// The register tiles of the lanes product (lanes_gemm.cpp), one per instruction set, each with
// the geometry its packing follows: W lanes per vector and Mr x Nr vectors of partial sums held
// in registers.
//   acc[r][j][W] = (acc +, when `add`) the sum over kc of ap[p][r][W] * bp[p][j][W], lane by lane.
// AVX-512 has twice AVX2's lanes per instruction and 32 registers: on a Xeon whose dgemm runs
// AVX-512 (OpenBLAS's SkylakeX kernels) the AVX2 tile ran the lanes orders at 0.6-0.73x dgemm.
#include <algorithm>
#include <cstdint>

#include "kernels/cpu_features.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TRA_LANES_X86 1
#include <immintrin.h>
#endif

namespace tra::kernels::cpu::lanes {

// Kc, the inner indices per packed block, is sized so that a row tile of A, a column tile of B
// and the next column tile of B, which the product fetches while the tile computes
// (lanes_gemm.cpp), fit a 32 KiB L1: (Mr + 2 Nr) x Kc vectors.
// AVX2's geometry, also the portable loops': 256-bit vectors, two per cache line, 3 x 4 sums;
// Kc = 64 (22 KiB). With 128 (28 KiB without the next tile, 44 with it) 16 lanes x 512^3 f64
// ran 1.14-1.17x the batched dgemm's time on a Zen 4 EPYC, against 1.11-1.14x.
template <class T>
struct Narrow {
    static constexpr int W = static_cast<int>(32 / sizeof(T)), Mr = 3, Nr = 4;
    static constexpr std::int64_t Kc = 64;
};
// AVX-512's: one 512-bit vector per cache line, 6 x 4 sums (24 of the 32 registers; the 4
// columns of B and one row of A at a time take 5 more); Kc = 32 (28 KiB). With 64, fetching the
// next tile evicted the tiles in use (Zen 4, 32 KiB L1), and without fetching it the first row
// tile of each column tile waited for B (16 lanes x 512^3 f64: 1.17-1.20x the batched dgemm's
// time, against 1.11-1.13x with 32 and the fetch). On a Xeon with a 48 KiB L1, 128 (80 KiB
// without the fetch) ran 10 % slower than 64.
template <class T>
struct Wide {
    static constexpr int W = static_cast<int>(64 / sizeof(T)), Mr = 6, Nr = 4;
    static constexpr std::int64_t Kc = 32;
};

template <class T>
using TileFn = void (*)(std::int64_t kc, const T* ap, const T* bp, T* acc, bool add);

template <class T, class L>
void tile_portable(std::int64_t kc, const T* ap, const T* bp, T* acc, bool add) {
    constexpr int W = L::W, Mr = L::Mr, Nr = L::Nr;
    if (!add) std::fill(acc, acc + Mr * Nr * W, T(0));
    for (std::int64_t p = 0; p < kc; ++p, ap += Mr * W, bp += Nr * W)
        for (int r = 0; r < Mr; ++r)
            for (int j = 0; j < Nr; ++j)
                for (int l = 0; l < W; ++l)
                    acc[(r * Nr + j) * W + l] += ap[r * W + l] * bp[j * W + l];
}

#ifdef TRA_LANES_X86
#define TRA_LANES_AVX2 __attribute__((target("avx2,fma")))
#define TRA_LANES_AVX512 __attribute__((target("avx512f")))

// One instruction set's vector of lanes: zero, load, store (aligned), fused multiply-add. Vectors
// go by reference: tile_registers, which calls these, is compiled for no vector extension (it is
// inlined into functions that are), and vectors passed by value there would change the ABI.
#define TRA_LANES_VECTOR(NAME, ATTR, T, V_, PREFIX, SUFFIX)                         \
    template <>                                                                     \
    struct NAME<T> {                                                                \
        using V = V_;                                                               \
        ATTR static void zero(V& v) { v = PREFIX##_setzero_##SUFFIX(); }            \
        ATTR static void load(V& v, const T* p) { v = PREFIX##_load_##SUFFIX(p); }  \
        ATTR static void store(T* p, const V& v) { PREFIX##_store_##SUFFIX(p, v); } \
        ATTR static void fma(V& c, const V& a, const V& b) {                        \
            c = PREFIX##_fmadd_##SUFFIX(a, b, c);                                   \
        }                                                                           \
    };
template <class T>
struct Avx2;
template <class T>
struct Avx512;
TRA_LANES_VECTOR(Avx2, TRA_LANES_AVX2, double, __m256d, _mm256, pd)
TRA_LANES_VECTOR(Avx2, TRA_LANES_AVX2, float, __m256, _mm256, ps)
TRA_LANES_VECTOR(Avx512, TRA_LANES_AVX512, double, __m512d, _mm512, pd)
TRA_LANES_VECTOR(Avx512, TRA_LANES_AVX512, float, __m512, _mm512, ps)
#undef TRA_LANES_VECTOR

// The tile with its Mr x Nr sums in registers, one fused multiply-add each per p: Nr columns of
// B loaded, then each row of A against them. Inlined into a function per instruction set, which
// carries the target and inlines everything it calls (GCC inlines the intrinsics only into
// functions compiled for them).
template <class X, class L, class T>
inline void tile_registers(std::int64_t kc, const T* ap, const T* bp, T* acc, bool add) {
    constexpr int W = L::W, Mr = L::Mr, Nr = L::Nr;
    typename X::V c[Mr][Nr], a, b[Nr];
#pragma GCC unroll 8
    for (int r = 0; r < Mr; ++r)
#pragma GCC unroll 8
        for (int j = 0; j < Nr; ++j)
            if (add)
                X::load(c[r][j], acc + (r * Nr + j) * W);
            else
                X::zero(c[r][j]);
    for (std::int64_t p = 0; p < kc; ++p, ap += Mr * W, bp += Nr * W) {
#pragma GCC unroll 8
        for (int j = 0; j < Nr; ++j) X::load(b[j], bp + j * W);
#pragma GCC unroll 8
        for (int r = 0; r < Mr; ++r) {
            X::load(a, ap + r * W);
#pragma GCC unroll 8
            for (int j = 0; j < Nr; ++j) X::fma(c[r][j], a, b[j]);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < Mr; ++r)
#pragma GCC unroll 8
        for (int j = 0; j < Nr; ++j) X::store(acc + (r * Nr + j) * W, c[r][j]);
}

template <class T>
[[gnu::flatten]] TRA_LANES_AVX2 void tile_avx2(std::int64_t kc, const T* ap, const T* bp, T* acc,
                                               bool add) {
    tile_registers<Avx2<T>, Narrow<T>>(kc, ap, bp, acc, add);
}
template <class T>
[[gnu::flatten]] TRA_LANES_AVX512 void tile_avx512(std::int64_t kc, const T* ap, const T* bp,
                                                   T* acc, bool add) {
    tile_registers<Avx512<T>, Wide<T>>(kc, ap, bp, acc, add);
}
// dst[q * step + l] = src[l * stride + q] for l, q < 8: eight lanes' runs of 8 inner indices
// (each a cache line where the runs are aligned) transposed into 8 vectors of lanes, in three
// rounds of two-source permutes (pairs of elements, of 2, of 4); packing's alternative to
// gathering lanes one element at a time. (Two-source permutes, not unpack and shuffle_f64x2,
// whose GCC 12 intrinsics warn of an uninitialized operand.)
TRA_LANES_AVX512 inline void transpose_8x8(const double* src, std::int64_t stride, double* dst,
                                           std::int64_t step) {
    // Indices, last element first: element e of the first source, or e - 8 of the second.
    const __m512i low1 = _mm512_set_epi64(14, 6, 12, 4, 10, 2, 8, 0),
                  high1 = _mm512_set_epi64(15, 7, 13, 5, 11, 3, 9, 1),
                  low2 = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0),
                  high2 = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2),
                  low4 = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0),
                  high4 = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
    __m512d r[8], t[8], u[8];
    for (int l = 0; l < 8; ++l) r[l] = _mm512_loadu_pd(src + l * stride);
    for (int l = 0; l < 8; l += 2) {                               // [i][l, l+1] pairs
        t[l] = _mm512_permutex2var_pd(r[l], low1, r[l + 1]);       // inner 0, 2, 4, 6
        t[l + 1] = _mm512_permutex2var_pd(r[l], high1, r[l + 1]);  // inner 1, 3, 5, 7
    }
    for (int l = 0; l < 8; l += 4)  // lanes l..l+3 of inner indices {0,4}, {1,5}, {2,6}, {3,7}
        for (int i = 0; i < 2; ++i) {
            u[l + i] = _mm512_permutex2var_pd(t[l + i], low2, t[l + 2 + i]);
            u[l + 2 + i] = _mm512_permutex2var_pd(t[l + i], high2, t[l + 2 + i]);
        }
    // u[q] holds inner indices q and q + 4 of lanes 0-3, u[4 + q] of lanes 4-7.
    for (int q = 0; q < 4; ++q) {
        _mm512_store_pd(dst + q * step, _mm512_permutex2var_pd(u[q], low4, u[4 + q]));
        _mm512_store_pd(dst + (q + 4) * step, _mm512_permutex2var_pd(u[q], high4, u[4 + q]));
    }
}

#undef TRA_LANES_AVX2
#undef TRA_LANES_AVX512

// The tiles above need AVX2 with FMA, or AVX-512F.
inline bool cpu_has_avx2() {
    return cpu_features::avx2() && cpu_features::fma();
}
inline bool cpu_has_avx512() {
    return cpu_features::avx512f();
}
#endif

}  // namespace tra::kernels::cpu::lanes
