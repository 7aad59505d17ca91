// Running einsum's matrix products (einsum_gemm.hpp): BLAS calls per batch, or the lanes
// product, on operands read in place or permuted first (TTGT). Zero extents give an empty sum,
// which BLAS is not asked. Batches are shared among the rank's threads where batch_threads says.
#include <cblas.h>

#include <algorithm>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/tile.hpp"
#include "kernels/blas_threads.hpp"
#include "kernels/einsum_gemm.hpp"
#include "kernels/lanes_gemm.hpp"
#include "kernels/parallel_for.hpp"
#include "kernels/scratch_held.hpp"
#include "kernels/short_dot.hpp"
#include "kernels/tile_permute.hpp"

namespace tra::kernels::cpu {

namespace {

blasint blas_int(std::int64_t x) {
    if (x > std::numeric_limits<blasint>::max())
        throw Error("matrix extent " + std::to_string(x) + " is too large for BLAS", {},
                    ErrorKind::Failed);
    return static_cast<blasint>(x);
}

// BLAS's transpose flag and leading dimension for an r x c matrix at strides (sr, sc), which
// the plan found readable (row-major, or column-major).
std::pair<CBLAS_TRANSPOSE, blasint> blas_layout(std::int64_t r, std::int64_t sr, std::int64_t c,
                                                std::int64_t sc) {
    if (row_major(r, sr, c, sc))
        return {CblasNoTrans, blas_int(r == 1 ? std::max<std::int64_t>(c, 1) : sr)};
    return {CblasTrans, blas_int(c == 1 ? std::max<std::int64_t>(r, 1) : sc)};
}

// C (m x n at strides scm, scn) = or += A (m x k at sam, sak) B (k x n at sbk, sbn).
template <class T>
void strided_gemm(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, std::int64_t sam,
                  std::int64_t sak, const T* b, std::int64_t sbk, std::int64_t sbn, T* c,
                  std::int64_t scm, std::int64_t scn, bool accumulate) {
    if (m == 1 && n == 1) {  // a dot product: BLAS call overhead would dominate
        const T sum = short_dot(k, a, sak, b, sbk);
        c[0] = accumulate ? c[0] + sum : sum;
        return;
    }
    if (!row_major(m, scm, n, scn)) {  // C column-major: C^T = B^T A^T
        std::swap(m, n);
        std::swap(a, b);
        std::swap(scm, scn);
        std::int64_t old_sam = sam, old_sak = sak;
        sam = sbn, sak = sbk, sbk = old_sak, sbn = old_sam;
    }
    const auto [ta, lda] = blas_layout(m, sam, k, sak);
    const auto [tb, ldb] = blas_layout(k, sbk, n, sbn);
    const blasint ldc = blas_int(m == 1 ? std::max<std::int64_t>(n, 1) : scm);
    if constexpr (std::is_same_v<T, float>)
        cblas_sgemm(CblasRowMajor, ta, tb, blas_int(m), blas_int(n), blas_int(k), 1.0f, a, lda, b,
                    ldb, accumulate ? 1.0f : 0.0f, c, ldc);
    else
        cblas_dgemm(CblasRowMajor, ta, tb, blas_int(m), blas_int(n), blas_int(k), 1.0, a, lda, b,
                    ldb, accumulate ? 1.0 : 0.0, c, ldc);
}

// The lanes product's geometry of a plan with lanes.
LanesGemm lanes_geometry(const GemmPlan& p) {
    LanesGemm g{p.m, p.n, p.k, p.lanes};
    g.a_rows = p.a.rows_stride, g.a_cols = p.a.cols_stride;
    g.b_rows = p.b.rows_stride, g.b_cols = p.b.cols_stride;
    g.c_rows = p.out.rows_stride, g.c_cols = p.out.cols_stride;
    g.a_lanes = p.a.lanes_stride, g.b_lanes = p.b.lanes_stride;
    return g;
}

// Scratch memory for permuted operands and products, one buffer per use and thread, kept
// between calls: fresh pages on every call (first-touch faults) cost more than the permutes.
// Host tiles, so a large one is on huge pages as the tiles are (host_mappings.hpp): on 4 KiB
// pages the permute into it ran 5-15 % slower, and the gemms reading it too.
// Counted in scratch_bytes_held(), as gemm_scratch predicts them.
template <class T>
T* scratch(int use, std::int64_t elements) {
    struct Kept {
        Tile tiles[3];
        HeldBytes held[3];
    };
    thread_local Kept kept;
    Tile& b = kept.tiles[use];
    if (b.elements() < elements) {
        b = Tile::uninitialized(dtype_of<T>(), Shape{elements});
        kept.held[use].set(elements * std::int64_t{sizeof(T)});
    }
    return b.data<T>();
}

template <class T>
const T* permuted(const GemmView& v, const T* data, int use) {
    T* out = scratch<T>(use, v.from.product());
    permute<T>(data, v.from, v.perm, out);
    return out;
}

}  // namespace

template <class T>
void run_gemm_plan(const GemmPlan& p, const T* a, const T* b, T* out, bool accumulate) {
    const std::int64_t total = p.batches() * p.m * p.n * p.lanes;
    if (total == 0) return;
    if (p.k == 0) {  // an empty sum
        if (!accumulate) std::fill(out, out + total, T(0));
        return;
    }
    if (!p.a.perm.empty()) a = permuted(p.a, a, 0);
    if (!p.b.perm.empty()) b = permuted(p.b, b, 1);
    const bool permute_out = !p.out.perm.empty();
    T* c = permute_out ? scratch<T>(2, total) : out;
    const bool beta_one = accumulate && !permute_out;
    const LanesGemm lanes = lanes_geometry(p);
    // The products of batches [begin, end), the batch labels walked as an odometer.
    auto products = [&](std::int64_t begin, std::int64_t end) {
        const std::size_t nb = p.batch.size();
        std::vector<std::int64_t> idx(nb, 0);
        std::int64_t oa = 0, ob = 0, oc = 0;
        for (std::size_t d = nb, rest = static_cast<std::size_t>(begin); d-- > 0;) {
            const auto extent = static_cast<std::size_t>(p.batch[d]);
            idx[d] = static_cast<std::int64_t>(rest % extent);
            rest /= extent;
            oa += idx[d] * p.a.batch_strides[d], ob += idx[d] * p.b.batch_strides[d],
                oc += idx[d] * p.out.batch_strides[d];
        }
        for (std::int64_t i = begin; i < end; ++i) {
            if (p.lanes > 1)
                lanes_gemm<T>(lanes, a + oa, b + ob, c + oc, beta_one);
            else
                strided_gemm<T>(p.m, p.n, p.k, a + oa, p.a.rows_stride, p.a.cols_stride, b + ob,
                                p.b.rows_stride, p.b.cols_stride, c + oc, p.out.rows_stride,
                                p.out.cols_stride, beta_one);
            for (std::size_t d = nb; d-- > 0;) {
                oa += p.a.batch_strides[d], ob += p.b.batch_strides[d],
                    oc += p.out.batch_strides[d];
                if (++idx[d] < p.batch[d]) break;
                oa -= p.a.batch_strides[d] * idx[d], ob -= p.b.batch_strides[d] * idx[d],
                    oc -= p.out.batch_strides[d] * idx[d];
                idx[d] = 0;
            }
        }
    };
    // Dots make no BLAS call, so their batches may be split among the rank's threads; BLAS
    // calls only with the BLAS on one thread per call (else its threads would run on top).
    if (p.m == 1 && p.n == 1 && p.lanes == 1) {
        parallel_for(p.batches(), std::max<std::int64_t>(1, kGrainElements / p.k), products);
    } else if (const int split = batch_threads(p, kernel_threads()); split > 1) {
        const BlasOnCallingThread blas;
        parallel_for_on(blas.active() ? split : 1, p.batches(), 1, products);
    } else {
        products(0, p.batches());
    }
    if (permute_out) permute<T>(c, p.out.from, p.out.perm, out, accumulate);
}

GemmScratch gemm_scratch(const GemmPlan& p, DType dtype, int threads) {
    GemmScratch out;
    const std::int64_t total = p.batches() * p.m * p.n * p.lanes;
    if (total == 0 || p.k == 0) return out;  // run_gemm_plan returns before any scratch
    const auto bytes = [&](std::int64_t elements) {
        return elements * static_cast<std::int64_t>(size_of(dtype));
    };
    if (!p.a.perm.empty()) out.permuted_a = bytes(p.a.from.product());
    if (!p.b.perm.empty()) out.permuted_b = bytes(p.b.from.product());
    if (!p.out.perm.empty()) out.permuted_out = bytes(total);
    if (p.lanes > 1)
        out.panels = dtype == DType::F32
                         ? lanes_gemm_scratch_bytes<float>(lanes_geometry(p), threads)
                         : lanes_gemm_scratch_bytes<double>(lanes_geometry(p), threads);
    return out;
}

template void run_gemm_plan<float>(const GemmPlan&, const float*, const float*, float*, bool);
template void run_gemm_plan<double>(const GemmPlan&, const double*, const double*, double*, bool);

}  // namespace tra::kernels::cpu
