#include "ia/gemm_shape_rates.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

namespace tra::ia {

namespace {

auto sides(const GemmShapeRate& p) {
    return std::tuple(p.m, p.n, p.k);
}

}  // namespace

std::optional<GemmShapeRates::Problem> GemmShapeRates::problem(
    const std::vector<GemmShapeRate>& points) {
    for (std::size_t i = 0; i < points.size(); ++i) {
        const GemmShapeRate& p = points[i];
        if (p.m < 1 || p.n < 1 || p.k < 1)
            return Problem{i, "m, n and k must be positive whole numbers"};
        if (!std::isfinite(p.flops_per_second) || p.flops_per_second <= 0)
            return Problem{i, "the rate must be positive and finite"};
        if (i > 0 && sides(p) <= sides(points[i - 1]))
            return Problem{i, "shapes must be ascending by m, then n, then k, and distinct: m " +
                                  std::to_string(p.m) + ", n " + std::to_string(p.n) + ", k " +
                                  std::to_string(p.k) + " follows m " +
                                  std::to_string(points[i - 1].m) + ", n " +
                                  std::to_string(points[i - 1].n) + ", k " +
                                  std::to_string(points[i - 1].k)};
    }
    return std::nullopt;
}

GemmShapeRates::GemmShapeRates(std::vector<GemmShapeRate> points) {
    if (const auto why = problem(points)) throw std::invalid_argument(why->what);
    points_ = std::move(points);
}

std::optional<double> GemmShapeRates::flops_per_second(std::int64_t m, std::int64_t n,
                                                       std::int64_t k) const {
    const auto at =
        std::lower_bound(points_.begin(), points_.end(), std::tuple(m, n, k),
                         [](const GemmShapeRate& p, const auto& key) { return sides(p) < key; });
    if (at == points_.end() || sides(*at) != std::tuple(m, n, k)) return std::nullopt;
    return at->flops_per_second;
}

}  // namespace tra::ia
