#include "kernels/kernel_calibration.hpp"

#include <algorithm>
#include <array>
#include <chrono>

#include "core/dtype.hpp"
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

// Operands of one call, and of the calls that follow it in turn.
using OperandSets = std::vector<std::vector<const Tile*>>;

// Seconds one call of `kernel` takes: the median over timed batches. Calls take the operand sets
// in turn, so with enough sets each call finds its operands out of the caches, as a join's
// calls find tiles of their own. The result of each call is dropped before the next, so large
// outputs reuse the pages of the one before (core/host_mappings.hpp), as tiles of one size do in
// a run.
double seconds_per_call(const KernelCall& kernel, const OperandSets& sets,
                        const KernelCalibrationSettings& s) {
    auto call = [&](std::size_t i) {
        kernel.apply(std::span<const Tile* const>(sets[i % sets.size()]));
    };
    Clock::time_point start = Clock::now();
    call(0);  // warm-up: maps the output, fills caches; sizes the batches
    const double first = std::max(seconds_since(start), 1e-9);
    const double batch_seconds = s.min_seconds / std::max(1, s.min_samples);
    const auto batch = static_cast<std::int64_t>(std::clamp(batch_seconds / first, 1.0, 1e7));
    std::vector<double> samples;
    std::size_t next = 1;
    const Clock::time_point begin = Clock::now();
    while (static_cast<int>(samples.size()) < s.min_samples ||
           seconds_since(begin) < s.min_seconds) {
        start = Clock::now();
        for (std::int64_t i = 0; i < batch; ++i) call(next++);
        samples.push_back(seconds_since(start) / static_cast<double>(batch));
    }
    std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
    return samples[samples.size() / 2];
}

double flops_per_second(const KernelCall& kernel, const OperandSets& sets,
                        const KernelCalibrationSettings& s) {
    std::vector<Shape> shapes;
    for (const Tile* t : sets.front()) shapes.push_back(t->shape());
    const auto flops = static_cast<double>(kernel.flops(shapes));
    if (flops <= 0)
        throw Error("calibration: " + kernel.str() + " counts no flops", {}, ErrorKind::Failed);
    return flops / seconds_per_call(kernel, sets, s);
}

DtypeKernelRates measure_dtype(DType dtype, const KernelCalibrationSettings& s,
                               const BeforeMeasurement& before) {
    DtypeKernelRates out;
    const KernelCall matmul("matmul");
    for (const std::int64_t n : s.gemm_sizes) {
        if (before) before("matmul " + name_of(dtype) + " " + std::to_string(n));
        const Tile a = filled(dtype, Shape{n, n}), b = filled(dtype, Shape{n, n});
        out.gemm.push_back({n, flops_per_second(matmul, {{&a, &b}}, s)});
    }
    const std::int64_t lo = s.thin_short, hi = s.thin_long;
    for (const auto [m, n, k] : {std::array{lo, hi, hi}, {hi, lo, hi}, {hi, hi, lo}}) {
        if (before)
            before("matmul " + name_of(dtype) + " " + std::to_string(m) + " x " +
                   std::to_string(k) + " by " + std::to_string(k) + " x " + std::to_string(n));
        // Operands of their own for each call, at least thin_operand_bytes of them in all.
        const std::int64_t set_bytes = (m * k + k * n) * static_cast<std::int64_t>(size_of(dtype));
        const std::int64_t count =
            std::max<std::int64_t>(1, (s.thin_operand_bytes + set_bytes - 1) / set_bytes);
        std::vector<Tile> tiles;
        tiles.reserve(static_cast<std::size_t>(2 * count));
        OperandSets sets;
        for (std::int64_t i = 0; i < count; ++i) {
            tiles.push_back(filled(dtype, Shape{m, k}));
            tiles.push_back(filled(dtype, Shape{k, n}));
            sets.push_back({&tiles[tiles.size() - 2], &tiles.back()});
        }
        out.thin_gemm.push_back({m, n, k, flops_per_second(matmul, sets, s)});
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
    out.loop_flops_per_second = flops_per_second(loop, {{&a, &b}}, s);
    return out;
}

}  // namespace

KernelCalibrationSettings KernelCalibrationSettings::full() {
    return {{64, 128, 256, 512, 1024, 2048}, 512, 32, std::int64_t{64} << 20, 96, 2048, 0.3, 3};
}

KernelCalibrationSettings KernelCalibrationSettings::quick() {
    return {{64, 128, 256, 512}, 512, 32, std::int64_t{64} << 20, 32, 2048, 0.05, 3};
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
        3.0 * static_cast<double>(a.bytes()) / seconds_per_call(add, {{&a, &b}}, s);

    if (before) before("add f64 1 x 1 (the fixed cost of a call)");
    const Tile x = filled(DType::F64, Shape{1, 1}), y = filled(DType::F64, Shape{1, 1});
    out.kernel_call_seconds = seconds_per_call(add, {{&x, &y}}, s);
    return out;
}

}  // namespace tra::kernels
