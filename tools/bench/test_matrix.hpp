// The benchmark baselines' input matrices, as closed forms of the global element position so
// that every rank fills its own blocks without communication, and a spot check of C = A B
// that recomputes single elements from those forms (a wrong distribution fails it). Also the
// element type a baseline runs in, named by its optional last argument (f64 or f32), as the
// workflow's `dtype` names tra's.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tra::bench {

// Small integers divided by a power of two: products and sums of K of them are exact in
// f64 up to K = 2^30, so the spot check compares exactly. In f32 the sums round once they
// pass 2^24 / 64 (K in the thousands), so f32 compares with a relative tolerance.
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
// x is a computed element of C, y its exact value. An f32 sum of K terms rounds at every
// step, so its tolerance grows with K.
template <typename T>
bool same(T x, double y, std::int64_t K) {
    const double tolerance = std::is_same_v<T, float> ? 1e-6 * static_cast<double>(K) : 1e-9;
    return std::abs(static_cast<double>(x) - y) <= tolerance * (1 + std::abs(y));
}

enum class Element { f64, f32 };

// The optional trailing argument: absent or "f64" is f64, "f32" is f32; false when it is
// anything else.
inline bool parse_element(int argc, char** argv, int plain_argc, Element& element) {
    element = Element::f64;
    if (argc == plain_argc) return true;
    if (argc != plain_argc + 1) return false;
    if (std::strcmp(argv[plain_argc], "f32") == 0) element = Element::f32;
    return element == Element::f32 || std::strcmp(argv[plain_argc], "f64") == 0;
}

}  // namespace tra::bench
