// The four 2-D matrix products. Transposes are BLAS flags, never copies, so matmul_tn and
// friends cost the same as matmul.
#include <cblas.h>

#include <algorithm>
#include <limits>
#include <type_traits>

#include "kernels/cpu_kernels.hpp"

namespace tra::kernels::cpu {

namespace {

blasint blas_extent(std::int64_t x) {
    if (x > std::numeric_limits<blasint>::max())
        throw Error("matrix extent " + std::to_string(x) + " is too large for BLAS", {},
                    ErrorKind::Failed);
    return static_cast<blasint>(x);
}

struct Variant {
    const char* name;
    bool trans_a;
    bool trans_b;
    const char* summary;
    const char* sum_of_products;  // KernelProperties::sum_of_products
};

constexpr Variant kVariants[] = {
    {"matmul", false, false, "matrix product A B of 2-D tiles: [m, k] x [k, n] -> [m, n]",
     "mk,kn->mn"},
    {"matmul_tn", true, false, "matrix product A^T B of 2-D tiles: [k, m] x [k, n] -> [m, n]",
     "km,kn->mn"},
    {"matmul_nt", false, true, "matrix product A B^T of 2-D tiles: [m, k] x [n, k] -> [m, n]",
     "mk,nk->mn"},
    {"matmul_tt", true, true, "matrix product A^T B^T of 2-D tiles: [k, m] x [n, k] -> [m, n]",
     "km,nk->mn"},
};

Checked<Shape> product_shape(const Variant& v, std::span<const Shape> ops) {
    if (auto problem = operand_count_problem(v.name, ops.size(), 2)) return *problem;
    const Shape& a = ops[0];
    const Shape& b = ops[1];
    if (a.size() != 2 || b.size() != 2)
        return Error(std::string(v.name) + ": operands must be 2-D, got " + shapes_str(ops));
    std::int64_t m = v.trans_a ? a[1] : a[0];
    std::int64_t ka = v.trans_a ? a[0] : a[1];
    std::int64_t kb = v.trans_b ? b[1] : b[0];
    std::int64_t n = v.trans_b ? b[0] : b[1];
    if (ka != kb) return Error(std::string(v.name) + ": inner extents differ: " + shapes_str(ops));
    return Shape{m, n};
}

// The one gemm of a product on these operands; nullopt when they do not fit the variant.
std::optional<GemmCalls> gemm_of(const Variant& v, std::span<const Shape> ops) {
    const Checked<Shape> out = product_shape(v, ops);
    if (!out) return std::nullopt;
    return GemmCalls{1, (*out)[0], (*out)[1], v.trans_a ? ops[0][0] : ops[0][1]};
}

Kernel make_product(const Variant& v) {
    Kernel k;
    k.name = v.name;
    k.arity = 2;
    // Only plain matmul is associative: (A^T B)^T C = B^T A C differs from A^T (B^T C).
    k.properties.associative = !v.trans_a && !v.trans_b;
    // Every variant is linear in each operand, so sums pass through from either side.
    k.properties.distributes_over = {"add"};
    k.properties.accumulates_with = "add";  // gemm with beta = 1
    k.properties.zero_preserving = true;    // sums of products of zeros
    k.properties.zero_annihilates = true;   // a zero operand makes every product zero
    k.properties.finite = true;
    k.properties.sum_of_products = v.sum_of_products;
    // No annihilator: a zero A does give a zero product, but of another shape than A for
    // non-square tiles, so op(z, x) == z does not hold as the property states it.
    k.summary = v.summary;
    k.output_shape = [v](std::span<const Shape> ops, const KernelParams&) {
        return product_shape(v, ops);
    };
    // Whatever the transposes, one BLAS gemm of m x k by k x n: 2*m*n*k flops, a multiply and an
    // add per (m, n, k). Operands that do not fit count 0 and no gemm.
    k.flops = [v](std::span<const Shape> ops, const KernelParams&) -> std::int64_t {
        const std::optional<GemmCalls> g = gemm_of(v, ops);
        return g ? 2 * g->m * g->n * g->k : 0;
    };
    k.gemm_calls = [v](std::span<const Shape> ops, const KernelParams&) { return gemm_of(v, ops); };
    k.apply = [v](std::span<const Tile* const> ops, const KernelParams&, const TilePosition&) {
        DType d = common_dtype(v.name, ops);
        std::vector<Shape> shapes = shapes_of(ops);
        Shape out_shape = product_shape(v, shapes).value();
        std::int64_t inner = v.trans_a ? shapes[0][0] : shapes[0][1];
        Tile out = Tile::uninitialized(d, out_shape);  // gemm writes every element
        visit_dtype(d, [&](auto t) {
            using T = decltype(t);
            gemm<T>(v.trans_a, v.trans_b, out_shape[0], out_shape[1], inner, ops[0]->data<T>(),
                    ops[1]->data<T>(), out.data<T>());
        });
        return out;
    };
    k.accumulate = [v](Tile& acc, std::span<const Tile* const> ops, const KernelParams&) {
        std::vector<Shape> shapes = shapes_of(ops);
        if (product_shape(v, shapes).value() != acc.shape()) return false;
        std::int64_t inner = v.trans_a ? shapes[0][0] : shapes[0][1];
        visit_dtype(acc.dtype(), [&](auto t) {
            using T = decltype(t);
            gemm<T>(v.trans_a, v.trans_b, acc.shape()[0], acc.shape()[1], inner, ops[0]->data<T>(),
                    ops[1]->data<T>(), acc.data<T>(), true);
        });
        return true;
    };
    return k;
}

}  // namespace

template <class T>
void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, const T* a,
          const T* b, T* c, bool accumulate) {
    if (m == 0 || n == 0) return;
    if (k == 0) {  // an empty sum; BLAS would be handed lda = 0
        if (!accumulate) std::fill(c, c + m * n, T(0));
        return;
    }
    blasint bm = blas_extent(m), bn = blas_extent(n), bk = blas_extent(k);
    CBLAS_TRANSPOSE ta = trans_a ? CblasTrans : CblasNoTrans;
    CBLAS_TRANSPOSE tb = trans_b ? CblasTrans : CblasNoTrans;
    blasint lda = trans_a ? bm : bk;
    blasint ldb = trans_b ? bk : bn;
    if (n == 1 || m == 1) {
        // A matrix times a vector: gemv reads the matrix once at memory speed, where gemm packs
        // it first (OpenBLAS forwards such gemm calls to gemv itself only from 0.3.27 on).
        // C[m, 1] = op(A) b, or C[1, n] = a op(B) = (op(B)^T a^T)^T; the vector is contiguous
        // either way (its other extent is 1), and so is C.
        if (!accumulate) std::fill(c, c + m * n, T(0));  // beta = 0 need not clear NaN garbage
        const bool column = n == 1;
        const T* matrix = column ? a : b;
        const T* vector = column ? b : a;
        // The matrix as stored (row-major rows x cols) and whether gemv transposes it.
        const bool stored_t = column ? trans_a : trans_b;
        const blasint rows = column ? (trans_a ? bk : bm) : (trans_b ? bn : bk);
        const blasint cols = column ? (trans_a ? bm : bk) : (trans_b ? bk : bn);
        const CBLAS_TRANSPOSE t = column == stored_t ? CblasTrans : CblasNoTrans;
        const blasint ld = column ? lda : ldb;
        if constexpr (std::is_same_v<T, float>)
            cblas_sgemv(CblasRowMajor, t, rows, cols, 1.0f, matrix, ld, vector, 1, 1.0f, c, 1);
        else
            cblas_dgemv(CblasRowMajor, t, rows, cols, 1.0, matrix, ld, vector, 1, 1.0, c, 1);
        return;
    }
    if constexpr (std::is_same_v<T, float>)
        cblas_sgemm(CblasRowMajor, ta, tb, bm, bn, bk, 1.0f, a, lda, b, ldb,
                    accumulate ? 1.0f : 0.0f, c, bn);
    else
        cblas_dgemm(CblasRowMajor, ta, tb, bm, bn, bk, 1.0, a, lda, b, ldb, accumulate ? 1.0 : 0.0,
                    c, bn);
}

template void gemm<float>(bool, bool, std::int64_t, std::int64_t, std::int64_t, const float*,
                          const float*, float*, bool);
template void gemm<double>(bool, bool, std::int64_t, std::int64_t, std::int64_t, const double*,
                           const double*, double*, bool);

std::vector<Kernel> matmul_kernels() {
    std::vector<Kernel> out;
    for (const Variant& v : kVariants) out.push_back(make_product(v));
    return out;
}

}  // namespace tra::kernels::cpu
