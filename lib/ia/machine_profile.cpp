#include "ia/machine_profile.hpp"

#include <algorithm>
#include <cmath>

namespace tra::ia {

namespace {

// The rate at x of measured points (non-empty, ascending and distinct in `at`): linear in log(x)
// between neighbouring points, the end points' rates beyond them.
template <class Point>
double log_interpolated(const std::vector<Point>& points, std::int64_t Point::*at, double x) {
    const auto key = [&](const Point& p) { return static_cast<double>(p.*at); };
    if (x <= key(points.front())) return points.front().flops_per_second;
    if (x >= key(points.back())) return points.back().flops_per_second;
    const auto hi = std::upper_bound(points.begin(), points.end(), x,
                                     [&](double v, const Point& p) { return v < key(p); });
    const auto lo = hi - 1;
    const double t = std::log(x / key(*lo)) / std::log(key(*hi) / key(*lo));
    return lo->flops_per_second + t * (hi->flops_per_second - lo->flops_per_second);
}

}  // namespace

double DtypeRates::gemm_flops_per_second(double flops_per_call) const {
    if (gemm.empty()) return loop_flops_per_second;
    return log_interpolated(gemm, &GemmRate::size, std::cbrt(std::max(flops_per_call, 0.0) / 2));
}

double DtypeRates::lanes_flops_per_second_at(std::int64_t lanes) const {
    if (lanes_by_count.empty()) return lanes_flops_per_second;
    return log_interpolated(lanes_by_count, &LanesRate::lanes, static_cast<double>(lanes));
}

double DtypeRates::gemm_excess_seconds(std::int64_t m, std::int64_t n, std::int64_t k,
                                       double element_bytes) const {
    const GemmExcess e = gemm_excess(m, n, k);
    double seconds = 0;
    if (gemm_operand_excess_bytes_per_second > 0)
        seconds += e.operand_elements * element_bytes / gemm_operand_excess_bytes_per_second;
    if (gemm_result_excess_bytes_per_second > 0)
        seconds += e.result_elements * element_bytes / gemm_result_excess_bytes_per_second;
    return seconds;
}

GemmExcess gemm_excess(std::int64_t m, std::int64_t n, std::int64_t k) {
    const double dm = static_cast<double>(m), dn = static_cast<double>(n),
                 dk = static_cast<double>(k);
    const double side = std::cbrt(dm * dn * dk);
    return {std::max(0.0, dm * dk + dk * dn - 2 * side * side),
            std::max(0.0, dm * dn - side * side)};
}

GemmExcessRates fitted_gemm_excess_rates(std::span<const GemmSample> samples,
                                         double element_bytes) {
    // Excess seconds = a x (seconds per operand byte) + b x (seconds per result byte).
    double aa = 0, ab = 0, bb = 0, ae = 0, be = 0;
    for (const GemmSample& g : samples) {
        const double extra = g.excess_seconds;
        const GemmExcess x = gemm_excess(g.m, g.n, g.k);
        const double a = x.operand_elements * element_bytes, b = x.result_elements * element_bytes;
        aa += a * a, ab += a * b, bb += b * b, ae += a * extra, be += b * extra;
    }
    // The unconstrained solution where it has both rates positive; otherwise each kind alone.
    const double det = aa * bb - ab * ab;
    double per_operand_byte = aa > 0 ? ae / aa : 0, per_result_byte = bb > 0 ? be / bb : 0;
    if (det > 1e-12 * aa * bb) {
        const double x = (ae * bb - be * ab) / det, y = (be * aa - ae * ab) / det;
        if (x > 0 && y > 0) per_operand_byte = x, per_result_byte = y;
    }
    auto rate = [](double seconds_per_byte) {
        return seconds_per_byte > 1 / kNoGemmExcess ? 1 / seconds_per_byte : kNoGemmExcess;
    };
    return {rate(per_operand_byte), rate(per_result_byte)};
}

const LinkRates& MachineProfile::across_hosts_or_default() const {
    return across_hosts.measured ? across_hosts : default_machine_profile().across_hosts;
}

const MachineProfile& default_machine_profile() {
    // Measured on the development machine (2 cores, OpenBLAS picking its own core, one thread
    // per rank, 2 ranks busy) with `tra calibrate`; rounded. Across hosts: a 10 Gbit/s network.
    static const MachineProfile profile = [] {
        MachineProfile p;
        p.name = "built-in default";
        p.blas_core = "";
        p.blas_threads = 1;
        p.ranks = 2;
        p.f64.gemm = {{64, 2.0e10}, {128, 3.2e10}, {256, 4.0e10}, {512, 4.5e10}, {1024, 4.8e10}};
        p.f64.gemm_operand_excess_bytes_per_second = 6e9;
        p.f64.gemm_result_excess_bytes_per_second = 3e10;
        p.f64.loop_flops_per_second = 6e8;
        p.f32.gemm = {{64, 4.0e10}, {128, 6.4e10}, {256, 8.0e10}, {512, 9.0e10}, {1024, 9.6e10}};
        p.f32.gemm_operand_excess_bytes_per_second = 6e9;
        p.f32.gemm_result_excess_bytes_per_second = 3e10;
        p.f32.loop_flops_per_second = 8e8;
        p.memory_bytes_per_second = 5e9;
        p.kernel_call_seconds = 2e-6;
        p.first_touch_bytes_per_second = 1e9;
        p.same_host = {true, 2e-6, 5e9};
        p.across_hosts = {false, 2e-5, 1.25e9};
        p.source = "built-in";
        return p;
    }();
    return profile;
}

}  // namespace tra::ia
