#include "kernels/kernel_calibration.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <span>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/tile.hpp"
#include "kernels/calibration_timing.hpp"
#include "kernels/einsum_gemm.hpp"
#include "kernels/gemm_pricing.hpp"
#include "kernels/kernel.hpp"

namespace tra::kernels {

namespace {

// The matmul rate at each of `shapes`, on its tiles, its products summed by groups as a fused
// join+sum sums them (runtime/join_aggregate.cpp).
std::vector<GemmShapePoint> measure_shapes(DType dtype, const std::vector<GemmShape>& shapes,
                                           const KernelCalibrationSettings& s,
                                           const BeforeMeasurement& before, double call_seconds) {
    const KernelCall matmul("matmul");
    KernelCalibrationSettings per_shape = s;
    per_shape.min_seconds = s.shape_seconds;
    const auto element = static_cast<std::int64_t>(size_of(dtype));
    std::vector<GemmShapePoint> out;
    for (const GemmShape& g : shapes) {
        const std::int64_t m = g.m, n = g.n, k = g.k;
        if (before)
            before("matmul " + name_of(dtype) + " " + std::to_string(m) + " x " +
                   std::to_string(k) + " by " + std::to_string(k) + " x " + std::to_string(n));
        // Tiles of each side (a sum per right tile), at most kMaxShapeSets each, both counts
        // cut alike where their bytes would exceed kMaxShapeBytes.
        const std::int64_t want_left = std::clamp<std::int64_t>(g.left_tiles, 1, kMaxShapeSets),
                           want_right = std::clamp<std::int64_t>(g.right_tiles, 1, kMaxShapeSets);
        const double bytes = static_cast<double>(element) *
                             static_cast<double>(want_left * m * k + want_right * (k * n + m * n));
        const double scale =
            std::min(1.0, static_cast<double>(kMaxShapeBytes) / std::max(bytes, 1.0));
        auto cut = [&](std::int64_t c) {
            return std::max<std::int64_t>(
                1, static_cast<std::int64_t>(static_cast<double>(c) * scale));
        };
        const std::int64_t lefts = cut(want_left), rights = cut(want_right);
        std::vector<Tile> left, right, sums;
        for (std::int64_t i = 0; i < lefts; ++i) left.push_back(timing::filled(dtype, Shape{m, k}));
        for (std::int64_t i = 0; i < rights; ++i) {
            right.push_back(timing::filled(dtype, Shape{k, n}));
            sums.push_back(timing::filled(dtype, Shape{m, n}));
        }
        // Call i takes left i mod lefts and right i mod rights: every pair in turn, as a join's
        // calls (lcm(lefts, rights) sets).
        timing::OperandSets sets;
        for (std::int64_t i = 0; i < std::lcm(lefts, rights); ++i)
            sets.push_back({&left[static_cast<std::size_t>(i % lefts)],
                            &right[static_cast<std::size_t>(i % rights)]});
        const double flops =
            2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
        out.push_back({m, n, k,
                       timing::net_rate(
                           flops, timing::seconds_per_call(matmul, sets, per_shape, &sums, g.group),
                           call_seconds)});
    }
    return out;
}

DtypeKernelRates measure_dtype(DType dtype, const KernelCalibrationSettings& s,
                               const BeforeMeasurement& before, double call_seconds) {
    DtypeKernelRates out;
    const KernelCall matmul("matmul");
    for (const std::int64_t n : s.gemm_sizes) {
        if (before) before("matmul " + name_of(dtype) + " " + std::to_string(n));
        const Tile a = timing::filled(dtype, Shape{n, n}), b = timing::filled(dtype, Shape{n, n});
        out.gemm.push_back({n, timing::flops_per_second(matmul, {{&a, &b}}, s, call_seconds)});
    }
    out.gemm_shapes = measure_shapes(dtype, dtype == DType::F32 ? s.f32_shapes : s.f64_shapes, s,
                                     before, call_seconds);
    const std::int64_t lo = s.thin_short, hi = s.thin_long;
    for (const auto [m, n, k] : {std::array{lo, hi, hi}, {hi, lo, hi}, {hi, hi, lo}}) {
        // The square product of (nearly) the same flops, on one operand set (in cache) as the
        // square figures above: the model prices a call at their rate plus its excess bytes.
        const auto side = std::max<std::int64_t>(
            1, std::llround(std::cbrt(static_cast<double>(m) * static_cast<double>(n) *
                                      static_cast<double>(k))));
        if (before)
            before("matmul " + name_of(dtype) + " " + std::to_string(m) + " x " +
                   std::to_string(k) + " by " + std::to_string(k) + " x " + std::to_string(n) +
                   " beside " + std::to_string(side));
        // Operands of their own for each call, at least thin_operand_bytes of them in all.
        const std::int64_t set_bytes = (m * k + k * n) * static_cast<std::int64_t>(size_of(dtype));
        const std::int64_t count =
            std::max<std::int64_t>(1, (s.thin_operand_bytes + set_bytes - 1) / set_bytes);
        std::vector<Tile> tiles;
        tiles.reserve(static_cast<std::size_t>(2 * count));
        timing::OperandSets sets;
        for (std::int64_t i = 0; i < count; ++i) {
            tiles.push_back(timing::filled(dtype, Shape{m, k}));
            tiles.push_back(timing::filled(dtype, Shape{k, n}));
            sets.push_back({&tiles[tiles.size() - 2], &tiles.back()});
        }
        const Tile a = timing::filled(dtype, Shape{side, side}),
                   b = timing::filled(dtype, Shape{side, side});
        const double scale = static_cast<double>(m) * static_cast<double>(n) *
                             static_cast<double>(k) / std::pow(static_cast<double>(side), 3);
        out.thin_gemm.push_back(
            {m, n, k, timing::seconds_beyond(matmul, sets, {{&a, &b}}, scale, s)});
    }
    // A batched max-plus product: no matrix product (join mul, agg add), so it runs einsum's
    // generic loop, the path of every contraction that is no gemm.
    const KernelCall loop = timing::einsum_call("ikb,kjb->ijb", "add", "max");
    const std::int64_t e = s.loop_extent;
    if (before) before(loop.str() + " " + name_of(dtype) + " " + std::to_string(e));
    const Tile a = timing::filled(dtype, Shape{e, e, 4}), b = timing::filled(dtype, Shape{e, e, 4});
    out.loop_flops_per_second = timing::flops_per_second(loop, {{&a, &b}}, s, call_seconds);

    // The same product with join mul and agg add: its batch b is innermost everywhere, so BLAS
    // would need all three permuted and the plan computes b as lanes instead (einsum_gemm.hpp;
    // calibrate installs no pricing, so the plan permuting nothing is taken).
    // At each lane count in turn, on the same extents.
    const KernelCall lanes = timing::einsum_call("ikb,kjb->ijb", "mul", "add");
    for (const std::int64_t count : kCalibrationLaneCounts) {
        const std::int64_t n = lanes_extent_for(count, s.lanes_extent);
        if (before)
            before(lanes.str() + " " + name_of(dtype) + " " + std::to_string(n) + ", " +
                   std::to_string(count) + " lanes");
        const Tile x = timing::filled(dtype, Shape{n, n, count}),
                   y = timing::filled(dtype, Shape{n, n, count});
        out.lanes_by_count.push_back(
            {count, timing::flops_per_second(lanes, {{&x, &y}}, s, call_seconds)});
        if (count == kCalibrationLanes)
            out.lanes_flops_per_second = out.lanes_by_count.back().flops_per_second;
    }
    return out;
}

}  // namespace

std::int64_t lanes_extent_for(std::int64_t lanes, std::int64_t extent) {
    if (lanes <= 64) return extent;
    const double side = static_cast<double>(extent) * std::sqrt(64.0 / static_cast<double>(lanes));
    return std::min(extent, std::max<std::int64_t>(8, std::llround(side)));
}

KernelCalibrationSettings KernelCalibrationSettings::full() {
    KernelCalibrationSettings s;
    s.gemm_sizes = {16, 32, 64, 128, 256, 512, 1024, 2048};
    s.thin_long = 512, s.thin_short = 32, s.thin_operand_bytes = std::int64_t{64} << 20;
    s.shape_seconds = 0.1;
    s.loop_extent = 96, s.lanes_extent = 256, s.stream_extent = 2048;
    s.min_seconds = 0.3, s.min_samples = 3;
    return s;
}

KernelCalibrationSettings KernelCalibrationSettings::quick() {
    KernelCalibrationSettings s = full();
    s.gemm_sizes = {16, 32, 64, 128, 256, 512};
    s.shape_seconds = 0.02;
    s.loop_extent = 32, s.lanes_extent = 128;
    s.min_seconds = 0.05;
    return s;
}

KernelCalibrationSettings KernelCalibrationSettings::beyond_cache(std::int64_t cache_bytes,
                                                                  int ranks_on_host) const {
    KernelCalibrationSettings s = *this;
    const std::int64_t need = std::min(
        kMaxStreamedBytes, 2 * std::max<std::int64_t>(cache_bytes, 0) / std::max(1, ranks_on_host));
    s.thin_operand_bytes = std::max(s.thin_operand_bytes, need);
    // Three f64 tiles of stream_extent^2 elements: the two operands of `add` and its output.
    const auto side = static_cast<std::int64_t>(
        std::ceil(std::sqrt(static_cast<double>(need) / (3.0 * sizeof(double)))));
    s.stream_extent = std::max(s.stream_extent, side);
    return s;
}

namespace {

// Prices every lanes plan out of reach, so the einsum kernel takes the BLAS plan (TTGT).
class BlasOnly : public cpu::GemmPricing {
  public:
    double seconds(const cpu::GemmPlan& plan, DType) const override {
        return plan.lanes > 1 ? std::numeric_limits<double>::infinity() : 0.0;
    }
};

// BlasOnly installed for the einsum kernels while in scope, the pricing before it after.
class BlasOnlyInScope {
  public:
    BlasOnlyInScope() : before_(cpu::gemm_pricing()) {
        cpu::use_gemm_pricing(std::make_shared<BlasOnly>());
    }
    ~BlasOnlyInScope() { cpu::use_gemm_pricing(before_); }
    BlasOnlyInScope(const BlasOnlyInScope&) = delete;
    BlasOnlyInScope& operator=(const BlasOnlyInScope&) = delete;

  private:
    std::shared_ptr<const cpu::GemmPricing> before_;
};

// Seconds per call of `spec`'s einsum on `count` sets of tiles of `shapes` taken in turn, as many
// as the thin products stream: a join's calls find their tiles out of the caches.
double seconds_in_turn(const char* spec, std::span<const Shape> shapes,
                       const KernelCalibrationSettings& s, const BeforeMeasurement& before,
                       const std::string& what) {
    const KernelCall call = timing::einsum_call(spec, "mul", "add");
    std::int64_t set_bytes = 0;
    for (const Shape& shape : shapes)
        set_bytes += shape.product() * static_cast<std::int64_t>(sizeof(double));
    const std::int64_t count =
        std::max<std::int64_t>(1, (s.thin_operand_bytes + set_bytes - 1) / set_bytes);
    if (before)
        before(call.str() + " f64 " + what + ", " + std::to_string(count) +
               (shapes.size() == 1 ? " tiles in turn" : " tile pairs in turn"));
    std::vector<Tile> tiles;
    tiles.reserve(static_cast<std::size_t>(count) * shapes.size());
    timing::OperandSets sets;
    for (std::int64_t i = 0; i < count; ++i) {
        sets.emplace_back();
        for (const Shape& shape : shapes) {
            tiles.push_back(timing::filled(DType::F64, shape));
            sets.back().push_back(&tiles.back());
        }
    }
    return timing::seconds_per_call(call, sets, s);
}

// TTGT's product of [n, n, 16] f64 tiles (n = lanes_extent) with the batch label innermost,
// moved outermost for BLAS and back in the product, on tile pairs taken in turn; and the lone
// permutes `ijb->bij` and back, on tiles in turn (KernelRates::ttgt).
TtgtFigures measure_ttgt(const KernelCalibrationSettings& s, const BeforeMeasurement& before) {
    const std::int64_t e = s.lanes_extent, lanes = kCalibrationLanes;
    const Shape inner{e, e, lanes}, outer{lanes, e, e};
    const double tile_bytes = static_cast<double>(inner.product() * sizeof(double));
    const auto text = [](const Shape& x) {
        return std::to_string(x[0]) + " x " + std::to_string(x[1]) + " x " + std::to_string(x[2]);
    };
    TtgtFigures out;
    const double lone = seconds_in_turn("ijb->bij", std::array{inner}, s, before, text(inner)) +
                        seconds_in_turn("bij->ijb", std::array{outer}, s, before, text(outer));
    out.lone_bytes_per_second = 4.0 * tile_bytes / lone;
    std::vector<std::int64_t> extents(26, 1);
    for (const char c : {'i', 'j', 'k'}) extents[static_cast<std::size_t>(c - 'a')] = e;
    extents['b' - 'a'] = lanes;
    const BlasOnly blas;
    out.plan = cpu::plan_gemm("ikb", "kjb", "ijb", extents, blas, DType::F64);  // as the kernel
    const BlasOnlyInScope blas_only;
    out.seconds = seconds_in_turn("ikb,kjb->ijb", std::array{inner, inner}, s, before,
                                  text(inner) + " by TTGT");
    return out;
}

}  // namespace

KernelRates calibrate_kernels(const KernelCalibrationSettings& s, const BeforeMeasurement& before) {
    KernelRates out;
    // First: the gemm rates are net of it.
    if (before) before("add f64 1 x 1 (the fixed cost of a call)");
    const Tile x = timing::filled(DType::F64, Shape{1, 1}),
               y = timing::filled(DType::F64, Shape{1, 1});
    const KernelCall add("add");
    out.kernel_call_seconds = timing::seconds_per_call(add, {{&x, &y}}, s);

    out.f64 = measure_dtype(DType::F64, s, before, out.kernel_call_seconds);
    out.f32 = measure_dtype(DType::F32, s, before, out.kernel_call_seconds);

    const std::int64_t n = s.stream_extent;
    if (before) before("add f64 " + std::to_string(n) + " x " + std::to_string(n));
    const Tile a = timing::filled(DType::F64, Shape{n, n}),
               b = timing::filled(DType::F64, Shape{n, n});
    // Each call reads both operands and writes its output once.
    out.memory_bytes_per_second =
        3.0 * static_cast<double>(a.bytes()) / timing::seconds_per_call(add, {{&a, &b}}, s);

    out.ttgt = measure_ttgt(s, before);
    return out;
}

}  // namespace tra::kernels
