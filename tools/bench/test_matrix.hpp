// The benchmark baselines' input matrices, as closed forms of the global element position so
// that every rank fills its own blocks without communication, and a spot check of C = A B
// that recomputes single elements from those forms (a wrong distribution fails it).
#pragma once

#include <cmath>
#include <cstdint>

namespace tra::bench {

// Small integers divided by a power of two: products and sums of K of them are exact in
// f64 up to K = 2^30, so the spot check compares exactly.
inline double a_element(std::int64_t i, std::int64_t k) {
    return static_cast<double>((i * 7 + k * 13) % 17 - 8) / 8.0;
}
inline double b_element(std::int64_t k, std::int64_t j) {
    return static_cast<double>((k * 5 + j * 11) % 19 - 9) / 8.0;
}
inline double c_element(std::int64_t i, std::int64_t j, std::int64_t K) {
    double s = 0;
    for (std::int64_t k = 0; k < K; ++k) s += a_element(i, k) * b_element(k, j);
    return s;
}
inline bool same(double x, double y) {
    return std::abs(x - y) <= 1e-9 * (1 + std::abs(y));
}

}  // namespace tra::bench
