#pragma once
// What a matrix-product einsum call permutes outside GEMM, for the time model's memory term.
// The CPU einsum kernel (kernels/einsum.cpp) runs such a call as a batch of GEMMs planned by
// kernels::cpu::plan_gemm (kernels/einsum_gemm.hpp): an operand or result whose labels BLAS
// cannot read in place is permuted first (TTGT), one extra pass over it. The model asks the
// same plan_gemm, so the kernel and the model cannot disagree on which operands move.
#include <cstdint>
#include <span>

#include "core/tile.hpp"
#include "kernels/kernel.hpp"

namespace tra::ia {

// Elements one call of `call` on operands of these shapes permutes (GemmPlan::permuted_elements:
// each permuted operand's, and the product's when it is permuted into the output); 0 for any
// call that is not a two-operand einsum with join mul and agg add, which runs no GEMM plan.
// Like the kernel, a label summed inside one operand alone is summed first (by the loop) and
// plays no part in the GEMM.
std::int64_t gemm_permuted_elements(const kernels::KernelCall& call,
                                    std::span<const Shape> operands);

}  // namespace tra::ia
