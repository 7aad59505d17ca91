#pragma once
// A binary einsum with join mul and agg add as a batch of matrix products (GEMM), whatever the
// label order: labels in A, B and the output are the batch, in A and the output the rows (M),
// in B and the output the columns (N), in A and B only the inner dimension (K). An operand whose
// M/N/K labels form runs that BLAS can read with one leading dimension is used in place (batch
// labels may sit anywhere: each batch is one strided GEMM call); any other is permuted into
// [batch][rows][cols] first (B into [batch][cols][rows] where the output is read column-major,
// so that BLAS, computing the transpose, reads it untransposed), and the product permuted back
// (TTGT). The plan picks the run orders that leave the fewest elements to permute. Where that
// would permute something and batch labels are innermost in the output or an operand (where
// BLAS cannot read it), the plan may instead compute those labels side by side as SIMD lanes
// (lanes_gemm.hpp), permuting only an output that does not hold them innermost or an operand
// that holds them too far apart: it does when that permutes fewer elements or, given a pricing
// of the machine (gemm_pricing.hpp), when that is priced faster.
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/tile.hpp"
#include "kernels/gemm_pricing.hpp"

namespace tra::kernels::cpu {

// How one operand (or the output) is read as a batch of matrices.
struct GemmView {
    // Non-empty: permute first. For an operand, its data into [batch][rows][cols] order
    // (canonical; B's may be [batch][cols][rows]; [batch][rows][cols][lanes] for the lanes
    // product) with perm[d] = the operand's dimension that becomes dimension d; for the output,
    // the product computed in canonical order into the output, perm[d] = the canonical
    // dimension that becomes output dimension d. `from` is the permute's input shape.
    std::vector<std::size_t> perm;
    Shape from;
    std::vector<std::int64_t> batch_strides;  // per batch label of the plan
    std::int64_t rows_stride = 0, cols_stride = 0;
    std::int64_t lanes_stride = 1;  // between lanes (the lanes product's operands; else 1)
};

// Whether BLAS reads an r x c matrix at element strides (sr, sc) as row-major: unit stride along
// c and a leading dimension of at least c (an extent-1 dimension's stride is free). Planning
// and running agree on it: a product whose output is not row-major is computed transposed.
inline bool row_major(std::int64_t r, std::int64_t sr, std::int64_t c, std::int64_t sc) {
    return (c == 1 || sc == 1) && (r == 1 || sr >= c);
}

// A: rows M, cols K; B: rows K, cols N; out: rows M, cols N.
struct GemmPlan {
    std::vector<std::int64_t> batch;  // the batch labels' extents (but for the lanes)
    // Elements of the innermost batch labels computed as lanes (lanes_gemm), 1 for BLAS. With
    // lanes the strides are in elements of each operand or output as the product reads it.
    std::int64_t lanes = 1;
    std::int64_t m = 1, n = 1, k = 1;
    GemmView a, b, out;
    std::int64_t batches() const;
    std::int64_t permuted_elements() const;  // what the permutes move, for choosing and tests
};

// The threads among which run_gemm_plan shares out `plan`'s BLAS calls on a rank of `threads`
// threads, each call then on one BLAS thread; 1: the calls in turn, each on the BLAS's threads.
// Several where the plan makes one BLAS call per batch (no lanes, not a dot) and its batches
// share out evenly (a multiple of the threads) or nearly (8 or more per thread): small products
// split among OpenBLAS's threads ran 1.1x (256^3) to 2x (32^3) the time of a batch per thread
// on two, 512^3 alike (docs/benchmarks.md, "Batches shared among a rank's threads"). The time
// model prices what this says.
int batch_threads(const GemmPlan& plan, int threads);

// Labels a, b -> o with their extents; every label of a and b is in at least two of a, b, o (a
// label summed inside one operand alone is summed before: einsum.cpp does). `canonical`: no
// operand is used in place unless it is in canonical order (batches contiguous, matrices dense
// and untransposed), for a strided-batched GEMM call (cuBLAS).
GemmPlan plan_gemm(const std::string& a, const std::string& b, const std::string& o,
                   const std::vector<std::int64_t>& extent_of_letter, bool canonical = false);
// The same, but where both a BLAS plan and a lanes plan are possible the one `pricing` prices
// faster on elements of `dtype` (the BLAS plan on a tie) rather than the one permuting fewer.
GemmPlan plan_gemm(const std::string& a, const std::string& b, const std::string& o,
                   const std::vector<std::int64_t>& extent_of_letter, const GemmPricing& pricing,
                   DType dtype);

// out = (or += when `accumulate`) the plan's product on host memory.
template <class T>
void run_gemm_plan(const GemmPlan& plan, const T* a, const T* b, T* out, bool accumulate);

// The scratch memory run_gemm_plan holds for a plan, in bytes: TTGT's permuted copies of A, of B
// and of the product, and the lanes product's packed panels (lanes_gemm_scratch_bytes). Each is a
// buffer of the calling thread per dtype, kept between calls and grown to the largest call's
// need (fresh pages on every call cost more than the permutes), so what a rank holds after a
// sequence of calls is, per buffer, the most any of them needed. 0 where the plan needs none.
struct GemmScratch {
    std::int64_t permuted_a = 0, permuted_b = 0, permuted_out = 0, panels = 0;
    std::int64_t total() const { return permuted_a + permuted_b + permuted_out + panels; }
    friend bool operator==(const GemmScratch&, const GemmScratch&) = default;
};
// On `threads` threads (the lanes product's panels depend on them; kernel_threads() in a run).
GemmScratch gemm_scratch(const GemmPlan& plan, DType dtype, int threads);

}  // namespace tra::kernels::cpu
