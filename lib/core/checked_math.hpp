#pragma once
// 64-bit integer arithmetic that says when it overflows, for shapes, frontiers, tuple counts and
// bytes computed from user input, where a wrapped value would turn into a wrong answer (a bogus
// "has holes" message, a tiny allocation) instead of an error naming the field.
#include <cstdint>
#include <optional>

namespace tra {

// a + b, or nothing when it does not fit in 64 bits.
inline std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
    return r;
}

// a * b, or nothing when it does not fit in 64 bits.
inline std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
    return r;
}

// ceil(a / b) for a >= 0 and b > 0, without the overflow of (a + b - 1) / b: the tile count of
// an extent a cut into tiles of b, the last one padded when b does not divide a.
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
    return a / b + (a % b != 0);
}

}  // namespace tra
