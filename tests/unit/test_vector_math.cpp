// The vectorisable exp and sigmoid (lib/kernels/vector_math.hpp): error against the exact value
// (long double's expl as reference) and against the C library's, the edges (inf, NaN,
// overflow, the subnormals), and the same bits from the vectorised kernels as from the scalar
// function.
#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/tile.hpp"
#include "kernels/kernel.hpp"
#include "kernels/vector_math.hpp"

using namespace tra;
namespace vmath = tra::kernels::vmath;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// How many representable values lie between two finite non-negative doubles (or floats).
std::int64_t ulps_apart(double a, double b) {
    const auto ia = static_cast<std::int64_t>(std::bit_cast<std::uint64_t>(a));
    const auto ib = static_cast<std::int64_t>(std::bit_cast<std::uint64_t>(b));
    return ia > ib ? ia - ib : ib - ia;
}
std::int64_t ulps_apart(float a, float b) {
    const auto ia = static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(a));
    const auto ib = static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(b));
    return ia > ib ? ia - ib : ib - ia;
}

// The same bits, or both NaN (a NaN's sign and payload may differ between vector and scalar code).
bool same_bits(double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}
bool same_bits(float a, float b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

// |got - exact| in units of got's last place (the subnormals' spacing below the normals).
double ulp_error(double got, long double exact) {
    const double spacing = std::nextafter(got, kInf) - got;
    return static_cast<double>(std::fabs(static_cast<long double>(got) - exact) / spacing);
}

// Arguments over exp's whole finite range and near 0, seeded: the normal results, the
// subnormal ones (x below -708.4) and tiny |x| where exp(x) rounds to 1 or its neighbours.
std::vector<double> exp_arguments() {
    std::mt19937_64 gen(22);
    std::uniform_real_distribution<double> wide(-745.2, 709.8), subnormal(-745.2, -708.3),
        unit(-1, 1);
    std::vector<double> xs;
    for (int i = 0; i < 400000; ++i) xs.push_back(wide(gen));
    for (int i = 0; i < 50000; ++i) xs.push_back(subnormal(gen));
    for (int i = 0; i < 50000; ++i) xs.push_back(unit(gen));
    for (int e = -60; e <= 0; ++e) {
        xs.push_back(std::ldexp(1.0, e));
        xs.push_back(-std::ldexp(1.0, e));
    }
    // Around multiples of ln 2 / 2, where the reduced argument is largest.
    for (int k = -2150; k <= 2048; ++k) xs.push_back(k * 0.34657359027997264);
    return xs;
}

}  // namespace

TEST_CASE("vmath::exp is within 1 ulp of the exact value and of std::exp") {
    double worst_exact = 0, worst_exact_x = 0;
    std::int64_t worst_libm = 0, differ = 0;
    const std::vector<double> xs = exp_arguments();
    for (double x : xs) {
        if (x < -745.2 || x > 709.78) continue;  // 0 and inf: the edge cases below
        const double got = vmath::exp(x);
        const double e = ulp_error(got, std::exp(static_cast<long double>(x)));
        if (e > worst_exact) worst_exact = e, worst_exact_x = x;
        const std::int64_t apart = ulps_apart(got, std::exp(x));
        worst_libm = std::max(worst_libm, apart);
        differ += apart != 0;
    }
    INFO("max error " << worst_exact << " ulp at x = " << worst_exact_x << "; " << differ << " of "
                      << xs.size() << " differ from std::exp, by at most " << worst_libm);
    CHECK(worst_exact < 0.8);  // faithfully rounded, and what vector_math.hpp claims
    CHECK(worst_libm <= 1);
    // Most results are std::exp's exactly (the error stays near half an ulp).
    CHECK(double(differ) < 0.05 * double(xs.size()));
    // The expression compiler folds exp(1) with it and its unit test wants std::exp(1)'s bits.
    CHECK(vmath::exp(1.0) == std::exp(1.0));
}

TEST_CASE("sigmoid's exp, without the compensation, stays within about 1 ulp") {
    double worst = 0, worst_x = 0;
    for (double x : exp_arguments()) {
        if (x > 0 || x < -745.2) continue;  // sigmoid's exp sees -|x| only
        const double e =
            ulp_error(vmath::exp_up_to_710<false>(x), std::exp(static_cast<long double>(x)));
        if (e > worst) worst = e, worst_x = x;
    }
    INFO("max error " << worst << " ulp at x = " << worst_x);
    CHECK(worst < 1.05);
}

TEST_CASE("vmath::exp at the edges: zeros, infinities, NaN, overflow and underflow") {
    CHECK(vmath::exp(0.0) == 1.0);
    CHECK(vmath::exp(-0.0) == 1.0);
    CHECK(vmath::exp(kInf) == kInf);
    CHECK(vmath::exp(-kInf) == 0.0);
    CHECK(std::isnan(vmath::exp(kNaN)));
    CHECK(std::isnan(vmath::exp(-kNaN)));
    // The largest finite result and the first that overflows.
    CHECK(vmath::exp(709.782712893384) == std::exp(709.782712893384));
    CHECK(std::isfinite(vmath::exp(709.782712893384)));
    CHECK(vmath::exp(709.7827128933841) == kInf);
    CHECK(vmath::exp(1e308) == kInf);
    CHECK(vmath::exp(-1e308) == 0.0);
    // The subnormal range ends at 2^-1074, which exp(-745.13) rounds to; below it, 0.
    CHECK(vmath::exp(-745.13) == std::exp(-745.13));
    CHECK(vmath::exp(-745.13) == std::numeric_limits<double>::denorm_min());
    CHECK(vmath::exp(-745.14) == 0.0);
    CHECK(vmath::exp(-800.0) == 0.0);
    CHECK(ulps_apart(vmath::exp(-720.0), std::exp(-720.0)) <= 1);
    CHECK(std::fpclassify(vmath::exp(-720.0)) == FP_SUBNORMAL);
}

TEST_CASE("vmath::exp in float matches std::exp within 1 ulp, edges included") {
    std::mt19937 gen(7);
    std::uniform_real_distribution<float> dist(-104.0f, 88.7f);
    std::int64_t worst = 0, differ = 0;
    const int n = 400000;
    for (int i = 0; i < n; ++i) {
        const float x = dist(gen);
        const float got = vmath::exp(x), want = std::exp(x);
        REQUIRE(std::isfinite(want));
        const std::int64_t apart = ulps_apart(got, want);
        worst = std::max(worst, apart);
        differ += apart != 0;
    }
    INFO(differ << " of " << n << " differ from std::exp, by at most " << worst);
    CHECK(worst <= 1);
    CHECK(differ < n / 100);
    const float inf = std::numeric_limits<float>::infinity();
    CHECK(vmath::exp(1.0f) == std::exp(1.0f));
    CHECK(vmath::exp(0.0f) == 1.0f);
    CHECK(vmath::exp(88.73f) == inf);
    CHECK(vmath::exp(inf) == inf);
    CHECK(vmath::exp(-inf) == 0.0f);
    CHECK(vmath::exp(-104.0f) == 0.0f);
    CHECK(std::isnan(vmath::exp(std::numeric_limits<float>::quiet_NaN())));
    CHECK(vmath::exp(-100.0f) == std::exp(-100.0f));  // a float subnormal
    CHECK(std::fpclassify(vmath::exp(-100.0f)) == FP_SUBNORMAL);
}

TEST_CASE("vmath::sigmoid matches the sign-split formula and never overflows") {
    auto reference = [](double x) {
        if (x >= 0) return 1 / (1 + std::exp(-x));
        return std::exp(x) / (1 + std::exp(x));
    };
    for (double x = -750; x <= 750; x += 0.37) {
        const double want = reference(x), got = vmath::sigmoid(x);
        INFO("x = " << x << ": got " << got << ", want " << want);
        CHECK(ulps_apart(got, want) <= 2);
    }
    CHECK(vmath::sigmoid(kInf) == 1.0);
    CHECK(vmath::sigmoid(-kInf) == 0.0);
    CHECK(vmath::sigmoid(0.0) == 0.5);
    CHECK(vmath::sigmoid(-0.0) == 0.5);
    CHECK(std::isnan(vmath::sigmoid(kNaN)));
    CHECK(vmath::sigmoid(-100.0f) > 0.0f);  // e^-100, a float subnormal
    CHECK(vmath::sigmoid(-200.0f) == 0.0f);
    CHECK(vmath::sigmoid(1000.0f) == 1.0f);
}

TEST_CASE("the vectorised kernels compute vmath's scalar bits, blocks and tails included") {
    // The exp and sigmoid kernels and the expressions run vectorised loops (target_clones picks
    // AVX-512 or AVX2 where the CPU has them); each lane must give the scalar function's bits.
    for (std::int64_t n : {1, 7, 255, 256, 1000, 4099}) {
        INFO("n = " << n);
        Tile x(DType::F64, Shape{n});
        Tile xf(DType::F32, Shape{n});
        for (std::int64_t i = 0; i < n; ++i) {
            const double v = std::sin(0.7 * double(i)) * (i % 3 == 0 ? 800 : 30);
            x.data<double>()[i] = v;
            xf.data<float>()[i] = static_cast<float>(v);
        }
        if (n > 5) {
            x.data<double>()[1] = kNaN;
            x.data<double>()[2] = kInf;
            x.data<double>()[3] = -kInf;
            x.data<double>()[4] = -740;  // subnormal result
        }
        const Tile* ops[] = {&x};
        const Tile* ops_f[] = {&xf};
        kernels::KernelParams exp_expr, silu_expr;
        exp_expr.expr = "exp(x)";
        silu_expr.expr = "x * sigmoid(x)";
        const Tile e = kernels::KernelCall("exp").apply(ops);
        const Tile s = kernels::KernelCall("silu").apply(ops);
        const Tile ee = kernels::KernelCall("expr", exp_expr).apply(ops);
        const Tile se = kernels::KernelCall("expr", silu_expr).apply(ops);
        const Tile ef = kernels::KernelCall("exp").apply(ops_f);
        const Tile sf = kernels::KernelCall("sigmoid").apply(ops_f);
        for (std::int64_t i = 0; i < n; ++i) {
            const double v = x.data<double>()[i];
            const float vf = xf.data<float>()[i];
            INFO("i = " << i << ", x = " << v);
            const double want_e = vmath::exp(v), want_s = v * vmath::sigmoid(v);
            CHECK(same_bits(e.data<double>()[i], want_e));
            CHECK(same_bits(ee.data<double>()[i], want_e));
            CHECK(same_bits(s.data<double>()[i], want_s));
            CHECK(same_bits(se.data<double>()[i], want_s));
            CHECK(same_bits(ef.data<float>()[i], vmath::exp(vf)));
            CHECK(same_bits(sf.data<float>()[i], vmath::sigmoid(vf)));
        }
    }
}
