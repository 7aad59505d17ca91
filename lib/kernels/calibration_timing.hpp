#pragma once
// How kernel_calibration.cpp times a kernel: calls in batches on operand sets taken in turn,
// the median over batches, rates net of a call's fixed cost. Internal to lib/kernels.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "core/tile.hpp"
#include "kernels/kernel.hpp"
#include "kernels/kernel_calibration.hpp"

namespace tra::kernels::timing {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// A tile of `shape` with every element 0.5: real numbers, no denormals, no NaNs.
Tile filled(DType dtype, const Shape& shape);

// Operands of one call, and of the calls that follow it in turn.
using OperandSets = std::vector<std::vector<const Tile*>>;

// The median of samples taken by `sample` until there are min_samples of them and min_seconds
// have passed.
template <class Sample>
double median_of_samples(Sample sample, const KernelCalibrationSettings& s) {
    std::vector<double> samples;
    const Clock::time_point begin = Clock::now();
    while (static_cast<int>(samples.size()) < s.min_samples || seconds_since(begin) < s.min_seconds)
        samples.push_back(sample());
    std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
    return samples[samples.size() / 2];
}

// Seconds one call of `kernel` takes: the median over timed batches of calls taking `sets` in
// turn, so with enough sets each call finds its operands out of the caches, as a join's calls
// find tiles of their own. Each call's result is dropped before the next (large outputs reuse the
// pages of the one before, core/host_mappings.hpp, as tiles of one size do in a run); or, where
// `sums` are given, calls go as a fused join+sum makes them: `group` calls in a row into one sum
// (the first makes it, the others add into it where the kernel can), the sums taken in turn.
double seconds_per_call(const KernelCall& kernel, const OperandSets& sets,
                        const KernelCalibrationSettings& s, std::vector<Tile>* sums = nullptr,
                        std::int64_t group = 1);

// Seconds a call of `kernel` on `sets` takes beyond `scale` calls on `reference`: the median of
// the difference over pairs of batches timed one right after the other. A difference of two
// figures measured apart moves with every change of the machine's pace between them (other
// work, clocks), and is small beside either; timed in pairs, both see the same pace.
double seconds_beyond(const KernelCall& kernel, const OperandSets& sets,
                      const OperandSets& reference, double scale,
                      const KernelCalibrationSettings& s);

// `flops` over `seconds` a kernel call took net of `call_seconds`, the fixed cost of a kernel
// call: the time model prices a call as that cost plus its flops at a rate (and the BLAS calls
// of a batched einsum, many to a kernel call, at the rate alone). The fixed cost (0.23 us on the
// development VM) is 15 % of a 32^3 f64 matmul call's time and half of a 16^3 one's, so the raw
// rate would price small products' flops too dear. Never above twice the raw rate, where noise
// in two small figures would put it.
double net_rate(double flops, double seconds, double call_seconds);

// The net rate of `kernel`'s calls on `sets`.
double flops_per_second(const KernelCall& kernel, const OperandSets& sets,
                        const KernelCalibrationSettings& s, double call_seconds);

// The einsum kernel call of `spec` with the given join and aggregation.
KernelCall einsum_call(const char* spec, const char* join, const char* agg);

}  // namespace tra::kernels::timing
