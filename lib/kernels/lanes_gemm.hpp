#pragma once
// A batch of matrix products whose batch index is the innermost (unit-stride) dimension of both
// operands and the product: C[i, j, l] (+)= sum_p A[i, p, l] B[p, j, l] for every lane l. BLAS
// cannot read such matrices (neither of their dimensions has unit stride), so TTGT would permute
// all three tensors through memory (einsum_gemm.hpp); this kernel instead computes the lanes
// side by side as SIMD vectors, as a GotoBLAS-style GEMM whose "elements" are vectors of lanes:
// operand blocks are packed into cache-sized panels and a register tile of mr x nr vectors
// accumulates over the inner dimension (the compact-GEMM idea of Intel MKL and of
// Dongarra et al., "Optimized batched linear algebra for modern architectures", 2017).
#include <cstdint>

namespace tra::kernels::cpu {

// The geometry of one lanes product, in elements. `lanes` elements sit contiguously at every
// (row, column) position of C (m x n), and at every position of A (m x k) and B (k x n) at a
// stride of their own (1: contiguous); the other strides are free.
struct LanesGemm {
    std::int64_t m = 1, n = 1, k = 1, lanes = 1;
    std::int64_t a_rows = 0, a_cols = 0;    // A's strides along m and along k
    std::int64_t b_rows = 0, b_cols = 0;    // B's along k and along n
    std::int64_t c_rows = 0, c_cols = 0;    // C's along m and along n
    std::int64_t a_lanes = 1, b_lanes = 1;  // A's and B's between lanes
};

// The instruction set the register tile runs on: the CPU's best (AVX-512, else AVX2 with FMA, where
// the CPU and the build have it), or the portable loops, which tests also call to check the other.
enum class LanesIsa { best, portable };

// C (+= when `accumulate`) the product, on up to kernel_threads() threads; every element of C is
// summed in the same order whatever the thread count or instruction set (over p in blocks, each
// block added to C in turn), so results do not depend on either but for fused multiply-adds.
// Packed panels take up to 32 MiB of B (shared by the threads) and per thread up to 16 MiB of A
// and one vector of lanes' partial sums of up to 96 of C's rows (1.5 MiB where n = 256); the
// calling thread keeps them between calls, grown to the largest (lanes_gemm_scratch_bytes).
template <class T>
void lanes_gemm(const LanesGemm& g, const T* a, const T* b, T* c, bool accumulate,
                LanesIsa isa = LanesIsa::best);

// The bytes of panels lanes_gemm takes for `g` on `threads` threads (kernel_threads() when it
// runs): what the calling thread's panel scratch grows to for it, for the peak-memory model.
template <class T>
std::int64_t lanes_gemm_scratch_bytes(const LanesGemm& g, int threads,
                                      LanesIsa isa = LanesIsa::best);

}  // namespace tra::kernels::cpu
