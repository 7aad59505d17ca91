#include "tra/tuple_limit.hpp"

#include <algorithm>
#include <cmath>

#include "core/checked_math.hpp"

namespace tra {

namespace {

// The smallest divisor of n that is at least `wanted` (n itself when none is smaller).
std::int64_t divisor_at_least(std::int64_t n, std::int64_t wanted) {
    std::int64_t best = n;
    for (std::int64_t i = 1; i * i <= n; ++i)
        if (n % i == 0)
            for (std::int64_t d : {i, n / i})
                if (d >= wanted && d < best) best = d;
    return best;
}

}  // namespace

std::int64_t tuples_in_box(const Frontier& f) {
    std::int64_t count = 1;
    for (std::int64_t extent : f) count = tuples_times(count, extent);
    return count;
}

std::int64_t tuples_times(std::int64_t count, std::int64_t factor) {
    return checked_mul(count, factor).value_or(kTooManyTuples);
}

std::string coarser_tiles_hint(const Shape& shape, const Shape& tile, std::int64_t max_tuples) {
    // Extents past 2^40 would take too long to factor (a divisor search up to 2^20 is instant).
    constexpr std::int64_t kLargestSearched = std::int64_t{1} << 40;
    double count = 1;
    for (std::size_t d = 0; d < shape.size(); ++d) count *= static_cast<double>(shape[d] / tile[d]);
    const double grow =
        std::ceil(std::pow(count / static_cast<double>(max_tuples), 1.0 / shape.size()));
    Shape coarser = tile;
    Frontier f(shape.size());
    for (std::size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] > kLargestSearched) return "";
        const double wanted = std::min(static_cast<double>(shape[d]), grow * tile[d]);
        coarser[d] = divisor_at_least(shape[d], static_cast<std::int64_t>(wanted));
        f[d] = shape[d] / coarser[d];
    }
    if (tuples_in_box(f) > max_tuples) return "";
    return "e.g. tile: " + coarser.str() + " (" + std::to_string(tuples_in_box(f)) + " tiles)";
}

std::optional<Error> too_many_tuples(const std::string& name, std::int64_t count,
                                     std::int64_t max_tuples, const SourceLocation& where,
                                     const std::string& hint) {
    if (count <= max_tuples) return std::nullopt;
    // A count past 64 bits, or a join stopped at the limit, is known only to exceed it.
    const std::string counted = count == kTooManyTuples || count == max_tuples + 1
                                    ? ""
                                    : " (" + std::to_string(count) + ")";
    return Error(name + " has more tuples (tiles)" + counted + " than the limit of " +
                     std::to_string(max_tuples) +
                     " (--max-tuples or TRA_MAX_TUPLES); use larger tiles" +
                     (hint.empty() ? "" : ", " + hint),
                 where);
}

}  // namespace tra
