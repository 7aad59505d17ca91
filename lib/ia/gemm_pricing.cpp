#include "ia/gemm_pricing.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace tra::ia {

namespace {

bool lowercase(const std::string& labels) {
    for (char c : labels)
        if (c < 'a' || c > 'z') return false;
    return true;
}

// `labels` without those in neither `other` nor `out` (summed inside this operand alone).
std::string shared_labels(const std::string& labels, const std::string& other,
                          const std::string& out) {
    std::string kept;
    for (char c : labels)
        if (other.find(c) != std::string::npos || out.find(c) != std::string::npos) kept += c;
    return kept;
}

double plan_flops(const kernels::cpu::GemmPlan& plan) {
    return 2.0 * static_cast<double>(plan.batches()) * static_cast<double>(plan.lanes) *
           static_cast<double>(plan.m) * static_cast<double>(plan.n) * static_cast<double>(plan.k);
}

// The BLAS calls of `plan`, nullopt where it computes lanes at a measured lanes rate or makes
// no call.
std::optional<kernels::GemmCalls> plan_blas_calls(const kernels::cpu::GemmPlan& plan,
                                                  const DtypeRates& rates) {
    if (plan.lanes > 1 && rates.lanes_flops_per_second_at(plan.lanes) > 0) return std::nullopt;
    const kernels::GemmCalls calls{plan.batches() * plan.lanes, plan.m, plan.n, plan.k};
    if (calls.count <= 0) return std::nullopt;
    return calls;
}

// The best rate of the profile's square gemm curve: the rank's threads all busy on the size
// they run best.
double best_gemm_rate(const DtypeRates& rates) {
    double best = 0;
    for (const GemmRate& g : rates.gemm) best = std::max(best, g.flops_per_second);
    return best;
}

// Seconds of `calls` shared among `split` threads, each call on one BLAS thread
// (kernels::cpu::batch_threads): in turns of `split` calls side by side (the last turn's idle
// threads counted as busy). The profile's rates are of calls on all the rank's threads. A call on
// one thread runs about as fast as they run a call of its size (below the BLAS's threading
// threshold it is the same call), so `split` of them side by side run at `split` times its rate,
// but not past the best rate the curve holds (where a size's call already keeps every thread
// busy, one-thread calls cannot do better together). On 2 threads of a Zen 4 EPYC, 1024 x 32^3
// to 16 x 512^3 ran at 0.86-1.42x this price; priced at the rate of calls `split` times larger
// (before 2026-12-06) at 0.5-0.81x (docs/benchmarks.md, "Small products from memory").
double shared_blas_seconds(const DtypeRates& rates, double flops, const kernels::GemmCalls& calls,
                           double element_bytes, int split) {
    const std::int64_t turns = (calls.count + split - 1) / split;
    const double per_call = flops / static_cast<double>(calls.count);
    const double busy = per_call * static_cast<double>(turns * split);
    const auto measured = rates.gemm_shapes.flops_per_second(calls.m, calls.n, calls.k);
    const double rate = measured ? *measured : rates.gemm_flops_per_second(per_call);
    const double shared = std::min(rate * split, std::max(rate, best_gemm_rate(rates)));
    if (measured) return busy / shared;
    return busy / shared + static_cast<double>(turns * split) *
                               rates.gemm_excess_seconds(calls.m, calls.n, calls.k, element_bytes);
}

}  // namespace

std::optional<kernels::GemmCalls> priced_blas_calls(
    const kernels::KernelCall& kernel, std::span<const Shape> shapes,
    const std::optional<kernels::cpu::GemmPlan>& plan, const DtypeRates& rates) {
    if (plan) return plan_blas_calls(*plan, rates);
    const std::optional<kernels::GemmCalls> calls = kernel.gemm_calls(shapes);
    if (!calls || calls->count <= 0) return std::nullopt;
    return calls;
}

double blas_seconds(const DtypeRates& rates, double flops, const kernels::GemmCalls& calls,
                    double element_bytes) {
    if (const auto measured = rates.gemm_shapes.flops_per_second(calls.m, calls.n, calls.k))
        return flops / *measured;
    const auto count = static_cast<double>(calls.count);
    return flops / rates.gemm_flops_per_second(flops / count) +
           count * rates.gemm_excess_seconds(calls.m, calls.n, calls.k, element_bytes);
}

std::shared_ptr<const ProfileGemmPricing> ProfileGemmPricing::holding(MachineProfile profile) {
    auto held = std::make_shared<const MachineProfile>(std::move(profile));
    auto pricing = std::make_shared<ProfileGemmPricing>(*held);
    pricing->held_ = std::move(held);
    return pricing;
}

double ProfileGemmPricing::product_seconds(const kernels::cpu::GemmPlan& plan, DType dtype,
                                           double flops) const {
    const DtypeRates& rates = profile_->rates(dtype);
    const auto element_bytes = static_cast<double>(size_of(dtype));
    if (const auto calls = plan_blas_calls(plan, rates)) {
        if (const int split = kernels::cpu::batch_threads(plan, profile_->blas_threads); split > 1)
            return shared_blas_seconds(rates, flops, *calls, element_bytes, split);
        return blas_seconds(rates, flops, *calls, element_bytes);
    }
    if (plan.lanes > 1) return flops / rates.lanes_flops_per_second_at(plan.lanes);
    return 0;  // no call
}

double ProfileGemmPricing::permuted_bytes(const kernels::cpu::GemmPlan& plan, DType dtype) const {
    return 2.0 * static_cast<double>(plan.permuted_elements()) *
           static_cast<double>(size_of(dtype));
}

double ProfileGemmPricing::permute_seconds(const kernels::cpu::GemmPlan& plan, DType dtype) const {
    return permuted_bytes(plan, dtype) / profile_->permute_rate();
}

double ProfileGemmPricing::seconds(const kernels::cpu::GemmPlan& plan, DType dtype) const {
    return product_seconds(plan, dtype, plan_flops(plan)) + permute_seconds(plan, dtype);
}

double ttgt_permute_rate(const MachineProfile& profile, const kernels::TtgtFigures& ttgt) {
    const ProfileGemmPricing pricing(profile);
    const double bytes = pricing.permuted_bytes(ttgt.plan, DType::F64);
    const double products = pricing.product_seconds(ttgt.plan, DType::F64, plan_flops(ttgt.plan));
    return bytes / std::max(ttgt.seconds - products, bytes / ttgt.lone_bytes_per_second);
}

namespace {

// A call's einsum as a matrix product: its labels and their extents; nullopt for a call that is
// no two-operand einsum with join mul and agg add.
struct ProductCall {
    std::string a, b, o;
    std::vector<std::int64_t> extent_of_letter;
};

std::optional<ProductCall> product_call(const kernels::KernelCall& call,
                                        std::span<const Shape> operands) {
    const kernels::KernelParams& p = call.params();
    if (call.name() != "einsum" || p.join_op != "mul" || p.agg_op != "add" || operands.size() != 2)
        return std::nullopt;
    const auto comma = p.spec.find(','), arrow = p.spec.find("->");
    if (comma == std::string::npos || arrow == std::string::npos || comma > arrow)
        return std::nullopt;
    ProductCall c{p.spec.substr(0, comma), p.spec.substr(comma + 1, arrow - comma - 1),
                  p.spec.substr(arrow + 2), std::vector<std::int64_t>(26, 1)};
    if (!lowercase(c.a + c.b + c.o) || c.a.size() != operands[0].size() ||
        c.b.size() != operands[1].size())
        return std::nullopt;
    for (std::size_t d = 0; d < c.a.size(); ++d)
        c.extent_of_letter[static_cast<std::size_t>(c.a[d] - 'a')] = operands[0][d];
    for (std::size_t d = 0; d < c.b.size(); ++d)
        c.extent_of_letter[static_cast<std::size_t>(c.b[d] - 'a')] = operands[1][d];
    return c;
}

// The CPU kernel's plan (not canonical: that one is the GPU's single cuBLAS call).
kernels::cpu::GemmPlan cpu_plan(const ProductCall& c, const kernels::cpu::GemmPricing& pricing,
                                DType dtype) {
    return kernels::cpu::plan_gemm(shared_labels(c.a, c.b, c.o), shared_labels(c.b, c.a, c.o), c.o,
                                   c.extent_of_letter, pricing, dtype);
}

// An operand with labels of its own is summed over them first, into a tile of its other labels
// (kernels/einsum.cpp, kernels/cuda/einsum.cu), which lives through the call: those bytes.
std::int64_t summed_first_bytes(const ProductCall& c, DType dtype) {
    std::int64_t bytes = 0;
    for (const auto& [labels, other] : {std::pair{c.a, c.b}, std::pair{c.b, c.a}}) {
        const std::string kept = shared_labels(labels, other, c.o);
        if (kept.size() == labels.size()) continue;
        std::int64_t elements = 1;
        for (char l : kept) elements *= c.extent_of_letter[static_cast<std::size_t>(l - 'a')];
        bytes += elements * static_cast<std::int64_t>(size_of(dtype));
    }
    return bytes;
}

}  // namespace

std::optional<kernels::cpu::GemmPlan> einsum_gemm_plan(const kernels::KernelCall& call,
                                                       std::span<const Shape> operands,
                                                       const kernels::cpu::GemmPricing& pricing,
                                                       DType dtype) {
    const std::optional<ProductCall> c = product_call(call, operands);
    if (!c) return std::nullopt;
    return cpu_plan(*c, pricing, dtype);
}

CallScratch einsum_call_scratch(const kernels::KernelCall& call, std::span<const Shape> operands,
                                const kernels::cpu::GemmPricing& pricing, DType dtype,
                                int threads) {
    CallScratch out;
    const std::optional<ProductCall> c = product_call(call, operands);
    if (!c) return out;
    out.kept = kernels::cpu::gemm_scratch(cpu_plan(*c, pricing, dtype), dtype, threads);
    out.during_call = summed_first_bytes(*c, dtype);
    return out;
}

CallScratch einsum_call_scratch_on_gpu(const kernels::KernelCall& call,
                                       std::span<const Shape> operands, DType dtype) {
    CallScratch out;
    const std::optional<ProductCall> c = product_call(call, operands);
    if (!c) return out;
    const kernels::cpu::GemmPlan canonical =
        kernels::cpu::plan_gemm(shared_labels(c->a, c->b, c->o), shared_labels(c->b, c->a, c->o),
                                c->o, c->extent_of_letter, true);
    // A canonical plan permutes, never packs lanes: its scratch is its copies (up to three).
    out.during_call =
        kernels::cpu::gemm_scratch(canonical, dtype, 1).total() + summed_first_bytes(*c, dtype);
    return out;
}

}  // namespace tra::ia
