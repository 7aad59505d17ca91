#pragma once
// Internal to lib/kernels: exp and sigmoid written as plain arithmetic that GCC vectorises. The
// C library's exp is an opaque call, so a loop over exp (and sigmoid, silu) runs one element at a
// time; these inline into the loop and run 4 or 8 lanes at once. Every step is one IEEE
// operation with no branch, so a lane computes the same bits (a NaN's sign aside) whether the
// compiler vectorises the loop or not, on any instruction set, provided the file is compiled
// without contraction into fma (-ffp-contract=off, lib/CMakeLists.txt): constant folding
// (scalar) and evaluation (vector) agree. Accuracy: tests/unit/test_vector_math.cpp.
#include <bit>
#include <cmath>
#include <cstdint>

#include "core/vector_clones.hpp"  // TRA_VECTOR_CLONES

namespace tra::kernels::vmath {

// exp(x) for x <= 710 (or NaN), the body of exp below: sigmoid calls it directly, since its
// argument is never positive and the clamp at 710 costs a tenth of its time. kCompensated adds
// back what the reduction and 1 + r round away (exp's 0.78 ulp); sigmoid goes without, at up to
// 1.02 ulp (measured, test_vector_math.cpp), which its sum and division swamp (it stays within
// 2 ulp of the formula on std::exp) and which saves a tenth of its time.
template <bool kCompensated>
[[gnu::always_inline]] inline double exp_up_to_710(double x) {
    x = x < -746.0 ? -746.0 : x;
    // Adding 1.5 * 2^52 rounds x / ln 2 to an integer and leaves it in the low mantissa bits:
    // round to nearest without a conversion instruction (double to int64 needs AVX-512DQ).
    constexpr double kShift = 0x1.8p52;
    const double shifted = x * 0x1.71547652b82fep0 + kShift;  // 1 / ln 2
    const double k = shifted - kShift;
    // ln 2 in two parts (fdlibm's): kLn2Hi has 32 significant bits, so k * kLn2Hi is exact for
    // |k| < 2^21 and x - k * kLn2Hi is exact too (the two are within a factor 2 of each other).
    constexpr double kLn2Hi = 0x1.62e42feep-1;
    constexpr double kLn2Lo = 0x1.a39ef35793c76p-33;
    const double hi = x - k * kLn2Hi;
    const double lo = k * kLn2Lo;
    const double r = hi - lo;
    // exp(r) = 1 + r + r^2 q(r): q is a degree-9 Chebyshev fit of (exp(r) - 1 - r) / r^2 on
    // |r| <= 0.3467 (mpmath), off by under 2^-56 after the multiplication by r^2. Estrin's scheme
    // rather than Horner's: a few more multiplications but a third of the dependency chain, which
    // is what limits a vectorised loop of it.
    const double r2 = r * r;
    const double r4 = r2 * r2;
    const double q01 = 0x1.0000000000001p-1 + 0x1.5555555555556p-3 * r;
    const double q23 = 0x1.5555555553d56p-5 + 0x1.11111111109afp-7 * r;
    const double q45 = 0x1.6c16c17890eb4p-10 + 0x1.a01a01a7c73c0p-13 * r;
    const double q67 = 0x1.a019b8f9792eep-16 + 0x1.71de0da24602dp-19 * r;
    const double q89 = 0x1.28919ccaf9211p-22 + 0x1.af38c67fbb53ep-26 * r;
    const double q = (q01 + q23 * r2) + (q45 + q67 * r2) * r4 + q89 * (r4 * r4);
    double p;
    if constexpr (kCompensated) {
        // What rounding r lost, and what 1 + r loses (exact: (1 - one_r) + r, as |r| < 1),
        // join the small terms before the one last rounding.
        const double r_lost = (hi - r) - lo;
        const double one_r = 1.0 + r;
        p = one_r + (((1.0 - one_r) + r) + (r2 * q + r_lost));
    } else {
        p = 1.0 + (r + r2 * q);
    }
    // 2^k as 2^k1 * 2^(k - k1), k1 = round(k / 2): k lies in [-1076, 1024], so each factor is a
    // normal double built from its exponent bits, and p * 2^k1 is exact; the one rounding is in
    // the last product, where the result overflows to inf or falls into the subnormals. The
    // shifted values hold 0x4338000000000000 + k (or + k1) as integers, so their difference is
    // k - k1, and the low 12 bits of shifted1 + 1023 are k1 + 1023, the biased exponent.
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(shifted);
    const std::uint64_t bits1 = std::bit_cast<std::uint64_t>(k * 0.5 + kShift);
    const double scale1 = std::bit_cast<double>((bits1 + 1023) << 52);
    const double scale2 = std::bit_cast<double>((bits - bits1 + 1023) << 52);
    return p * scale1 * scale2;
}

// exp(x) in double, within 1 ulp of the exact value: 0.78 ulp at most measured
// (test_vector_math.cpp), and 2% of results differ from glibc's by 1 ulp. Outside [-746, 710]
// the result is 0 or inf, so x is clamped to it (a NaN passes through both comparisons and yields
// NaN). Then exp(x) = 2^k exp(r), k = round(x / ln 2), |r| <= ln 2 / 2 (Cody-Waite reduction),
// and exp(r) comes from a polynomial; no table, since a table lookup would need a gather.
[[gnu::always_inline]] inline double exp(double x) {
    return exp_up_to_710<true>(x > 710.0 ? 710.0 : x);
}

// exp in float through the double one: its error is far below a float's half ulp, so the result
// is the correctly rounded float nearly always (as glibc's expf's), overflow and the float
// subnormals included.
[[gnu::always_inline]] inline float exp(float x) {
    return static_cast<float>(vmath::exp(static_cast<double>(x)));
}

// The logistic function 1 / (1 + exp(-x)), split by sign so exp never overflows: for x >= 0 it
// is 1 / (1 + e), else e / (1 + e), with e = exp(-|x|) in both, so one exp and a select serve
// every lane.
template <class T>
[[gnu::always_inline]] inline T sigmoid(T x) {
    const T e = static_cast<T>(exp_up_to_710<false>(-std::abs(static_cast<double>(x))));
    return (x >= T(0) ? T(1) : e) / (T(1) + e);
}

}  // namespace tra::kernels::vmath
