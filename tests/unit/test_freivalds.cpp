// The arithmetic of `tra run --verify`'s Freivalds check (lib/runtime/freivalds.hpp): the sign
// vector, contracting one dimension of a tile with it, and the residual bound that tells rounding
// from a wrong element. Expected values are computed by hand here, never by tra's kernels.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "runtime/freivalds.hpp"

using tra::DType;
using tra::Shape;
using tra::Tile;
namespace fv = tra::runtime::freivalds;

namespace {

Tile tile_2x3() {  // [[1, -2, 3], [4, 5, -6]]
    Tile t(DType::F64, Shape{2, 3});
    const double v[] = {1, -2, 3, 4, 5, -6};
    for (int i = 0; i < 6; ++i) t.set(i, v[i]);
    return t;
}

}  // namespace

TEST_CASE("freivalds: the sign vector is +-1, fixed by the seed", "[freivalds]") {
    const auto a = fv::sign_vector(42, 64), b = fv::sign_vector(42, 64),
               c = fv::sign_vector(43, 64);
    CHECK(a == b);
    CHECK(a != c);
    int plus = 0;
    for (double x : a) {
        CHECK((x == 1.0 || x == -1.0));
        plus += x > 0;
    }
    CHECK(plus > 8);  // both signs occur (64 fair draws)
    CHECK(plus < 56);
    // A prefix of a longer vector: narrower edge tiles use the same signs.
    const auto longer = fv::sign_vector(42, 100);
    CHECK(std::equal(a.begin(), a.end(), longer.begin()));
}

TEST_CASE("freivalds: contracting the last or the first dimension", "[freivalds]") {
    const Tile t = tile_2x3();
    const std::vector<double> r = {1, -1, 1, 1};  // one longer than needed: its prefix is used
    const auto [last, mag] = fv::contract_dim_both(t, 1, r);  // t r and |t| |r|
    REQUIRE(last.shape() == Shape{2, 1});
    CHECK(last.get(0) == 1 + 2 + 3);
    CHECK(last.get(1) == 4 - 5 - 6);
    CHECK(mag.get(0) == 6);
    CHECK(mag.get(1) == 15);
    const auto [first, first_mag] = fv::contract_dim_both(t, 0, r);
    REQUIRE(first.shape() == Shape{1, 3});
    CHECK(first.get(0) == 1 - 4);
    CHECK(first.get(1) == -2 - 5);
    CHECK(first.get(2) == 3 + 6);
    CHECK(first_mag.get(0) == 5);
    CHECK(first_mag.get(1) == 7);
    CHECK(first_mag.get(2) == 9);
    Tile abs(t.dtype(), t.shape());
    fv::absolute_into(t, abs);
    CHECK(abs.get(5) == 6);
}

TEST_CASE("freivalds: a matrix times a vector and |matrix| times another, in one pass",
          "[freivalds]") {
    for (DType d : {DType::F64, DType::F32}) {
        // L = [[1, -2, 3], [4, 5, -6]] as [m, k] = [2, 3], and its transpose as [k, m].
        Tile l(d, Shape{2, 3}), lt(d, Shape{3, 2});
        const double v[] = {1, -2, 3, 4, 5, -6};
        for (int i = 0; i < 6; ++i) {
            l.set(i, v[i]);
            lt.set((i % 3) * 2 + i / 3, v[i]);
        }
        Tile u(d, Shape{3, 1}), w(d, Shape{1, 3});  // any shape of k elements
        const double uv[] = {2, -1, 1}, wv[] = {1, 2, 3};
        for (int i = 0; i < 3; ++i) {
            u.set(i, uv[i]);
            w.set(i, wv[i]);
        }
        for (const auto& [matrix, dim] : {std::pair<const Tile*, std::size_t>{&l, 1}, {&lt, 0}}) {
            const auto [y, ym] = fv::matrix_vector_both(*matrix, dim, u, w);
            REQUIRE(y.shape() == Shape{2, 1});
            CHECK(y.get(0) == 2 + 2 + 3);
            CHECK(y.get(1) == 8 - 5 - 6);
            CHECK(ym.get(0) == 1 + 4 + 9);
            CHECK(ym.get(1) == 4 + 10 + 18);
        }
        CHECK_THROWS(fv::matrix_vector_both(l, 0, u, w));  // k = 2 rows, 3-element vectors
    }
}

TEST_CASE("freivalds: rows longer than the vector lanes, and their remainder", "[freivalds]") {
    // Small integers: every sum is exact in f32 and f64, so any order of summing gives the naive
    // loops' values exactly. Extents of 37 and 19 cover whole blocks of lanes and a remainder.
    const auto value = [](std::int64_t i) { return static_cast<double>((i * 7) % 11) - 5; };
    const std::vector<double> r = fv::sign_vector(7, 64);
    for (DType d : {DType::F64, DType::F32}) {
        const std::int64_t m = 3, k = 37;
        Tile l(d, Shape{m, k}), lt(d, Shape{k, m}), u(d, Shape{k, 1}), w(d, Shape{k, 1});
        for (std::int64_t i = 0; i < m * k; ++i) {
            l.set(i, value(i));
            lt.set((i % k) * m + i / k, value(i));
        }
        for (std::int64_t j = 0; j < k; ++j) {
            u.set(j, r[static_cast<std::size_t>(j)]);
            w.set(j, static_cast<double>(j % 3 + 1));
        }
        const auto [rows, rows_mag] = fv::contract_dim_both(l, 1, r);
        const auto [y, ym] = fv::matrix_vector_both(l, 1, u, w);
        const auto [yt, ymt] = fv::matrix_vector_both(lt, 0, u, w);
        for (std::int64_t i = 0; i < m; ++i) {
            double dot = 0, abs = 0, weighted = 0;
            for (std::int64_t j = 0; j < k; ++j) {
                dot += value(i * k + j) * r[static_cast<std::size_t>(j)];
                abs += std::fabs(value(i * k + j));
                weighted += std::fabs(value(i * k + j)) * static_cast<double>(j % 3 + 1);
            }
            CHECK(rows.get(i) == dot);
            CHECK(rows_mag.get(i) == abs);
            CHECK(y.get(i) == dot);
            CHECK(ym.get(i) == weighted);
            CHECK(yt.get(i) == dot);
            CHECK(ymt.get(i) == weighted);
        }
        // A middle dimension: [2, 19, 11] contracted on its 19.
        Tile t(d, Shape{2, 19, 11});
        for (std::int64_t i = 0; i < t.elements(); ++i) t.set(i, value(i));
        const auto [mid, mid_mag] = fv::contract_dim_both(t, 1, r);
        REQUIRE(mid.shape() == Shape{2, 1, 11});
        for (std::int64_t a = 0; a < 2; ++a)
            for (std::int64_t b = 0; b < 11; ++b) {
                double dot = 0, abs = 0;
                for (std::int64_t j = 0; j < 19; ++j) {
                    dot += value((a * 19 + j) * 11 + b) * r[static_cast<std::size_t>(j)];
                    abs += std::fabs(value((a * 19 + j) * 11 + b));
                }
                CHECK(mid.get(a * 11 + b) == dot);
                CHECK(mid_mag.get(a * 11 + b) == abs);
            }
    }
}

TEST_CASE("freivalds: a wrong product element is caught, rounding is not", "[freivalds]") {
    // O = L R by hand for L = [[1, 2], [3, 4]], R = [[5, 6], [7, 8]]: [[19, 22], [43, 50]].
    const std::vector<double> r = {1, -1};
    const double o_r[] = {19 - 22, 43 - 50};
    const double r_first[] = {1 * (5 - 6) + 2 * (7 - 8), 3 * (5 - 6) + 4 * (7 - 8)};
    const double magnitude[] = {1 * 11 + 2 * 15, 3 * 11 + 4 * 15};  // |L| (|R| |r|)
    for (int i = 0; i < 2; ++i)
        CHECK(fv::within_bound(o_r[i], r_first[i], magnitude[i], 4, DType::F64));
    // One element of O off by 1 (the corrupt hook changes an element by at least 1).
    CHECK_FALSE(fv::within_bound(o_r[0] + 1, r_first[0], magnitude[0], 4, DType::F64));
    // Rounding: a few ulps of the magnitude pass in f64 and in f32, a relative 1e-6 fails in f64.
    const double eps = std::numeric_limits<double>::epsilon();
    CHECK(fv::within_bound(1000.0, 1000.0 + 4 * eps * 1000, 1000, 4, DType::F64));
    CHECK_FALSE(fv::within_bound(1000.0, 1000.0 * (1 + 1e-6), 1000, 4, DType::F64));
    CHECK(fv::within_bound(1000.0, 1000.0 * (1 + 1e-6), 1000, 4, DType::F32));
    // NaN never passes; equal infinities do.
    CHECK_FALSE(fv::within_bound(std::nan(""), 1, 1, 4, DType::F64));
    const double inf = std::numeric_limits<double>::infinity();
    CHECK(fv::within_bound(inf, inf, inf, 4, DType::F64));
}
