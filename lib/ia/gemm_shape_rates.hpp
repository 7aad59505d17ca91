#pragma once
// The rates of BLAS gemm calls measured at their exact shapes (`tra calibrate --for WORKFLOW`
// measures the shapes that workflow's products make; docs/machine-profile.md, `gemm_shapes`).
// A product's rate depends on more than its flops, and not smoothly: with OpenBLAS on one Xeon,
// row-major 3000 x 20 by 20 x 16 runs at 61 GFLOP/s and 3000 x 20 by 20 x 32 at 32 (two
// threads), so neither a square rate with a penalty per extra byte nor interpolation on a grid
// of shapes holds thin products within 25 % (docs/benchmarks.md, "Gemm rates at a workflow's own
// shapes").
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tra::ia {

// One measured shape: m x k by k x n calls at this rate.
struct GemmShapeRate {
    std::int64_t m = 0, n = 0, k = 0;
    double flops_per_second = 0;
};

class GemmShapeRates {
  public:
    GemmShapeRates() = default;  // none measured
    // `points` ascending by (m, n, k) and distinct, every side and rate positive; throws
    // std::invalid_argument otherwise (problem says why first).
    explicit GemmShapeRates(std::vector<GemmShapeRate> points);

    // What keeps `points` from being such a list, and the index of the point at fault; nullopt
    // where they are one.
    struct Problem {
        std::size_t point = 0;
        std::string what;
    };
    static std::optional<Problem> problem(const std::vector<GemmShapeRate>& points);

    bool empty() const { return points_.empty(); }
    const std::vector<GemmShapeRate>& points() const { return points_; }
    // The rate measured for m x k by k x n calls; nullopt where that shape was not measured.
    std::optional<double> flops_per_second(std::int64_t m, std::int64_t n, std::int64_t k) const;

  private:
    std::vector<GemmShapeRate> points_;
};

}  // namespace tra::ia
