#pragma once
// What a GEMM plan costs, for the one choice plan_gemm (einsum_gemm.hpp) cannot make by counting
// elements: whether to compute innermost batch labels as SIMD lanes (lanes_gemm.hpp) or to
// permute them away for BLAS (TTGT). The lanes product runs at 0.6-1.3x dgemm's rate depending
// on the CPU, the lane count and the BLAS threads, so which is faster is a property of the
// machine: the time model's machine profile prices both (ia/gemm_pricing.hpp), and `tra run`
// installs that same pricing for its kernels, so the runtime runs the plan the model priced.
#include <cstdint>
#include <memory>

#include "core/dtype.hpp"

namespace tra::kernels::cpu {

struct GemmPlan;

class GemmPricing {
  public:
    virtual ~GemmPricing() = default;
    // Seconds one call of `plan` on elements of `dtype` takes: its products and its permutes.
    virtual double seconds(const GemmPlan& plan, DType dtype) const = 0;
};

// The pricing this process's einsum kernels choose their plans by; none (the default) chooses
// by fewest elements permuted (plan_gemm without a pricing). Set before kernels run (`tra run`
// sets it once per rank, before its first operator); safe to read from any thread.
void use_gemm_pricing(std::shared_ptr<const GemmPricing> pricing);
std::shared_ptr<const GemmPricing> gemm_pricing();
// Changes with every use_gemm_pricing, so plans chosen by an earlier pricing (einsum.cpp keeps
// them per thread) are told apart without taking the lock.
std::uint64_t gemm_pricing_generation();

}  // namespace tra::kernels::cpu
