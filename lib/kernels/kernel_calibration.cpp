#include "kernels/kernel_calibration.hpp"

#include <algorithm>
#include <array>
#include <chrono>

#include "core/error.hpp"
#include "core/tile.hpp"
#include "kernels/kernel.hpp"

namespace tra::kernels {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// A tile of `shape` with every element 0.5: real numbers, no denormals, no NaNs.
Tile filled(DType dtype, const Shape& shape) {
    Tile t = Tile::uninitialized(dtype, shape);
    visit_dtype(dtype, [&](auto v) {
        using T = decltype(v);
        std::fill(t.data<T>(), t.data<T>() + t.elements(), static_cast<T>(0.5));
    });
    return t;
}

// Seconds one call of `kernel` on `operands` takes: the median over timed batches. The result of
// each call is dropped before the next, so large outputs reuse the pages of the one before
// (core/host_mappings.hpp), as tiles of one size do in a run.
double seconds_per_call(const KernelCall& kernel, const std::vector<const Tile*>& operands,
                        const KernelCalibrationSettings& s) {
    const std::span<const Tile* const> ops(operands);
    Clock::time_point start = Clock::now();
    kernel.apply(ops);  // warm-up: maps the output, fills caches; sizes the batches
    const double first = std::max(seconds_since(start), 1e-9);
    const double batch_seconds = s.min_seconds / std::max(1, s.min_samples);
    const auto batch = static_cast<std::int64_t>(std::clamp(batch_seconds / first, 1.0, 1e7));
    std::vector<double> samples;
    const Clock::time_point begin = Clock::now();
    while (static_cast<int>(samples.size()) < s.min_samples ||
           seconds_since(begin) < s.min_seconds) {
        start = Clock::now();
        for (std::int64_t i = 0; i < batch; ++i) kernel.apply(ops);
        samples.push_back(seconds_since(start) / static_cast<double>(batch));
    }
    std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
    return samples[samples.size() / 2];
}

double flops_per_second(const KernelCall& kernel, const std::vector<const Tile*>& operands,
                        const KernelCalibrationSettings& s) {
    std::vector<Shape> shapes;
    for (const Tile* t : operands) shapes.push_back(t->shape());
    const auto flops = static_cast<double>(kernel.flops(shapes));
    if (flops <= 0)
        throw Error("calibration: " + kernel.str() + " counts no flops", {}, ErrorKind::Failed);
    return flops / seconds_per_call(kernel, operands, s);
}

DtypeKernelRates measure_dtype(DType dtype, const KernelCalibrationSettings& s,
                               const BeforeMeasurement& before) {
    DtypeKernelRates out;
    const KernelCall matmul("matmul");
    for (const std::int64_t n : s.gemm_sizes) {
        if (before) before("matmul " + name_of(dtype) + " " + std::to_string(n));
        const Tile a = filled(dtype, Shape{n, n}), b = filled(dtype, Shape{n, n});
        out.gemm.push_back({n, flops_per_second(matmul, {&a, &b}, s)});
    }
    const std::int64_t lo = s.thin_short, hi = s.thin_long;
    for (const auto [m, n, k] : {std::array{lo, hi, hi}, {hi, lo, hi}, {hi, hi, lo}}) {
        if (before)
            before("matmul " + name_of(dtype) + " " + std::to_string(m) + " x " +
                   std::to_string(k) + " by " + std::to_string(k) + " x " + std::to_string(n));
        const Tile a = filled(dtype, Shape{m, k}), b = filled(dtype, Shape{k, n});
        out.thin_gemm.push_back({m, n, k, flops_per_second(matmul, {&a, &b}, s)});
    }
    // A batched max-plus product: no matrix product (join mul, agg add), so it runs einsum's
    // generic loop, the path of every contraction that is no gemm.
    KernelParams p;
    p.spec = "ikb,kjb->ijb";
    p.join_op = "add";
    p.agg_op = "max";
    const KernelCall loop("einsum", p);
    const std::int64_t e = s.loop_extent;
    if (before) before(loop.str() + " " + name_of(dtype) + " " + std::to_string(e));
    const Tile a = filled(dtype, Shape{e, e, 4}), b = filled(dtype, Shape{e, e, 4});
    out.loop_flops_per_second = flops_per_second(loop, {&a, &b}, s);
    return out;
}

}  // namespace

KernelCalibrationSettings KernelCalibrationSettings::full() {
    return {{64, 128, 256, 512, 1024, 2048}, 512, 32, 96, 2048, 0.3, 3};
}

KernelCalibrationSettings KernelCalibrationSettings::quick() {
    return {{64, 128, 256, 512}, 512, 32, 32, 2048, 0.05, 3};
}

KernelRates calibrate_kernels(const KernelCalibrationSettings& s, const BeforeMeasurement& before) {
    KernelRates out;
    out.f64 = measure_dtype(DType::F64, s, before);
    out.f32 = measure_dtype(DType::F32, s, before);

    const KernelCall add("add");
    const std::int64_t n = s.stream_extent;
    if (before) before("add f64 " + std::to_string(n) + " x " + std::to_string(n));
    const Tile a = filled(DType::F64, Shape{n, n}), b = filled(DType::F64, Shape{n, n});
    // Each call reads both operands and writes its output once.
    out.memory_bytes_per_second =
        3.0 * static_cast<double>(a.bytes()) / seconds_per_call(add, {&a, &b}, s);

    if (before) before("add f64 1 x 1 (the fixed cost of a call)");
    const Tile x = filled(DType::F64, Shape{1, 1}), y = filled(DType::F64, Shape{1, 1});
    out.kernel_call_seconds = seconds_per_call(add, {&x, &y}, s);
    return out;
}

}  // namespace tra::kernels
