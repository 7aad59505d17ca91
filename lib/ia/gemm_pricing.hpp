#pragma once
// How the time model prices a matrix product: BLAS calls by their size and shape, the lanes
// product (kernels/lanes_gemm.hpp) at its own rate, and the permutes of a TTGT plan as passes
// over memory. The CPU einsum kernel runs a matrix-product call by kernels::cpu::plan_gemm
// (kernels/einsum_gemm.hpp), which weighs a lanes plan against a BLAS plan by a pricing:
// ProfileGemmPricing is that pricing for a machine profile, used by the model to predict and
// installed by `tra run` for its kernels to choose (kernels/gemm_pricing.hpp), so the kernel runs
// the plan the model priced.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "core/dtype.hpp"
#include "core/tile.hpp"
#include "ia/machine_profile.hpp"
#include "kernels/einsum_gemm.hpp"
#include "kernels/gemm_pricing.hpp"
#include "kernels/kernel.hpp"
#include "kernels/kernel_calibration.hpp"

namespace tra::ia {

// Seconds of `calls` BLAS gemm calls doing `flops` in all: the flops at the rate measured for
// the calls' exact shape (DtypeRates::gemm_shapes); for shapes not measured, at the rate of the
// calls' size plus what thin or flat calls move beyond square ones (gemm_excess_seconds).
double blas_seconds(const DtypeRates& rates, double flops, const kernels::GemmCalls& calls,
                    double element_bytes);

// The BLAS calls one call of `kernel` on operands of `shapes` is priced as (product_seconds
// below, the time model's joins): those of its GEMM plan `plan` (einsum_gemm_plan) unless that
// computes lanes at a measured lanes rate, otherwise the kernel's own (the matmul kernels);
// nullopt where it makes none (priced at the lanes or the loop rate). What `tra calibrate --for`
// measures (program_gemm_shapes.hpp).
std::optional<kernels::GemmCalls> priced_blas_calls(
    const kernels::KernelCall& kernel, std::span<const Shape> shapes,
    const std::optional<kernels::cpu::GemmPlan>& plan, const DtypeRates& rates);

class ProfileGemmPricing final : public kernels::cpu::GemmPricing {
  public:
    // Prices by `profile`, which must outlive this.
    explicit ProfileGemmPricing(const MachineProfile& profile) : profile_(&profile) {}
    // A pricing that holds its own copy of `profile` (what `tra run` installs).
    static std::shared_ptr<const ProfileGemmPricing> holding(MachineProfile profile);

    // Seconds of the products of one call of `plan` doing `flops` flops (the kernel's count: it
    // includes labels summed inside one operand before the product): a BLAS plan as its
    // batches of m x k by k x n calls (blas_seconds; where kernels::cpu::batch_threads shares
    // them among the profile's BLAS threads, at that many times their size's rate, at most the
    // gemm curve's best); a
    // lanes plan at the lanes rate, or where the profile has none as the BLAS calls of its
    // geometry.
    double product_seconds(const kernels::cpu::GemmPlan& plan, DType dtype, double flops) const;
    // Bytes the plan's permutes read and write: each permuted element once each way.
    double permuted_bytes(const kernels::cpu::GemmPlan& plan, DType dtype) const;
    // Those bytes at the profile's permute rate (MachineProfile::permute_rate).
    double permute_seconds(const kernels::cpu::GemmPlan& plan, DType dtype) const;
    // product_seconds of the plan's own flops plus its permute_seconds.
    double seconds(const kernels::cpu::GemmPlan& plan, DType dtype) const override;

  private:
    const MachineProfile* profile_;
    std::shared_ptr<const MachineProfile> held_;
};

// Bytes read plus written per second by TTGT's permutes as they cost inside TTGT (what
// MachineProfile::permute_bytes_per_second holds): the bytes `ttgt`'s plan permutes over the
// seconds it took beyond its products as `profile` prices them (product_seconds: the rates, and
// the sharing among threads, that every product is priced with), at most the lone permutes'
// rate. Each permute streams its output past the caches and the gemms read it back from memory,
// and the steps evict each other's operands: priced as lone permutes, f64 `ijb,jkb->ikb` with
// 64 lanes of 256^3 ran 1.2x over its price (docs/benchmarks.md).
double ttgt_permute_rate(const MachineProfile& profile, const kernels::TtgtFigures& ttgt);

// The GEMM plan the CPU kernel runs for one call of `call` on operands of these shapes, chosen
// as the kernel chooses under `pricing`; nullopt for a call that is no two-operand einsum with
// join mul and agg add (it runs no GEMM plan). Like the kernel, a label summed inside one
// operand alone is summed first and plays no part in the plan.
std::optional<kernels::cpu::GemmPlan> einsum_gemm_plan(const kernels::KernelCall& call,
                                                       std::span<const Shape> operands,
                                                       const kernels::cpu::GemmPricing& pricing,
                                                       DType dtype);

// The memory one CPU call of `call` on operands of these shapes takes beside its operands and
// result (kernels/einsum.cpp), its GEMM plan chosen as einsum_gemm_plan chooses it: `kept`, the
// plan's scratch (kernels::cpu::gemm_scratch on `threads` threads), buffers the calling thread
// keeps after the call; `during_call`, an operand summed first over labels of its own, freed when
// the call returns. Zero for a call that runs no GEMM plan.
struct CallScratch {
    kernels::cpu::GemmScratch kept;
    std::int64_t during_call = 0;
};
CallScratch einsum_call_scratch(const kernels::KernelCall& call, std::span<const Shape> operands,
                                const kernels::cpu::GemmPricing& pricing, DType dtype, int threads);

// The same for one GPU call (kernels/cuda/einsum.cu), in device memory: its one cuBLAS call
// reads operands in canonical order (kernels::cpu::plan_gemm's `canonical`), so operands and
// product out of that order are permuted into device buffers of their own, which live through
// the call with an operand summed first (`during_call`); the call keeps nothing after it.
CallScratch einsum_call_scratch_on_gpu(const kernels::KernelCall& call,
                                       std::span<const Shape> operands, DType dtype);

}  // namespace tra::ia
