#include "kernels/calibration_timing.hpp"

#include <algorithm>
#include <span>

#include "core/error.hpp"

namespace tra::kernels::timing {

namespace {

// One kernel timed in batches of calls, each making a new tile; or, where `sums` are given, as a
// fused join+sum makes them: `group` calls in a row into one sum (the first makes it, the others
// add into it where the kernel can), the groups' sums kept, taken in turn. Calls take the operand
// sets in turn, so with enough sets each call finds its operands out of the caches, as a join's
// calls find tiles of their own. Without sums the result of each call is dropped before the next,
// so large outputs reuse the pages of the one before (core/host_mappings.hpp), as tiles of one
// size do in a run.
class BatchTimer {
  public:
    // Makes one untimed warm-up call (it maps the output and fills the caches) and sizes the
    // batches from it: min_seconds / min_samples each.
    BatchTimer(const KernelCall& kernel, const OperandSets& sets,
               const KernelCalibrationSettings& s, std::vector<Tile>* sums = nullptr,
               std::int64_t group = 1)
        : kernel_(kernel), sets_(sets), sums_(sums), group_(static_cast<std::size_t>(group)) {
        const Clock::time_point start = Clock::now();
        call();
        const double first = std::max(seconds_since(start), 1e-9);
        const double batch_seconds = s.min_seconds / std::max(1, s.min_samples);
        batch_ = static_cast<std::int64_t>(std::clamp(batch_seconds / first, 1.0, 1e7));
    }

    // Seconds per call over one timed batch.
    double batch() {
        const Clock::time_point start = Clock::now();
        for (std::int64_t i = 0; i < batch_; ++i) call();
        return seconds_since(start) / static_cast<double>(batch_);
    }

  private:
    void call() {
        const std::size_t i = next_++;
        const std::span<const Tile* const> operands(sets_[i % sets_.size()]);
        if (!sums_) {
            kernel_.apply(operands);
            return;
        }
        // A group's first product is a new tile, the others are added into it.
        Tile& sum = (*sums_)[(i / group_) % sums_->size()];
        if (i % group_ == 0 || !kernel_.accumulate(sum, operands)) sum = kernel_.apply(operands);
    }

    const KernelCall& kernel_;
    const OperandSets& sets_;
    std::vector<Tile>* sums_;  // the groups' sums, taken in turn, or null: each call's product
                               // is dropped before the next
    std::size_t group_;        // calls per group
    std::size_t next_ = 0;
    std::int64_t batch_ = 1;
};

}  // namespace

Tile filled(DType dtype, const Shape& shape) {
    Tile t = Tile::uninitialized(dtype, shape);
    visit_dtype(dtype, [&](auto v) {
        using T = decltype(v);
        std::fill(t.data<T>(), t.data<T>() + t.elements(), static_cast<T>(0.5));
    });
    return t;
}

double seconds_per_call(const KernelCall& kernel, const OperandSets& sets,
                        const KernelCalibrationSettings& s, std::vector<Tile>* sums,
                        std::int64_t group) {
    BatchTimer timer(kernel, sets, s, sums, group);
    return median_of_samples([&] { return timer.batch(); }, s);
}

double seconds_beyond(const KernelCall& kernel, const OperandSets& sets,
                      const OperandSets& reference, double scale,
                      const KernelCalibrationSettings& s) {
    BatchTimer timer(kernel, sets, s), reference_timer(kernel, reference, s);
    return median_of_samples([&] { return timer.batch() - scale * reference_timer.batch(); }, s);
}

double net_rate(double flops, double seconds, double call_seconds) {
    return flops / std::max(seconds - call_seconds, seconds / 2);
}

double flops_per_second(const KernelCall& kernel, const OperandSets& sets,
                        const KernelCalibrationSettings& s, double call_seconds) {
    std::vector<Shape> shapes;
    for (const Tile* t : sets.front()) shapes.push_back(t->shape());
    const auto flops = static_cast<double>(kernel.flops(shapes));
    if (flops <= 0)
        throw Error("calibration: " + kernel.str() + " counts no flops", {}, ErrorKind::Failed);
    return net_rate(flops, seconds_per_call(kernel, sets, s), call_seconds);
}

KernelCall einsum_call(const char* spec, const char* join, const char* agg) {
    KernelParams p;
    p.spec = spec;
    p.join_op = join;
    p.agg_op = agg;
    return KernelCall("einsum", p);
}

}  // namespace tra::kernels::timing
