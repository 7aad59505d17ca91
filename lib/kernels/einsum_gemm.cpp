// Planning and running einsum's matrix products (einsum_gemm.hpp). Extent-1 labels take no part
// in the layout (they move no offset); zero extents give an empty sum, which BLAS is not asked.
#include "kernels/einsum_gemm.hpp"

#include <cblas.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "kernels/lanes_gemm.hpp"
#include "kernels/parallel_for.hpp"
#include "kernels/short_dot.hpp"
#include "kernels/tile_permute.hpp"

namespace tra::kernels::cpu {

namespace {

bool has(const std::string& s, char c) {
    return s.find(c) != std::string::npos;
}

struct Layout {
    const std::vector<std::int64_t>& extent_of;
    std::int64_t extent(char c) const { return extent_of[static_cast<std::size_t>(c - 'a')]; }
    std::int64_t extent(const std::string& run) const {
        std::int64_t e = 1;
        for (char c : run) e *= extent(c);
        return e;
    }
    // Row-major element stride of label c in an operand labelled `labels`.
    std::int64_t stride(const std::string& labels, char c) const {
        return extent(labels.substr(labels.find(c) + 1));
    }
};

// The stride of `run` read as one dimension of `labels`, or -1 when its labels are not
// consecutive there in this order. An empty run has extent 1 and any stride (0).
std::int64_t run_stride(const Layout& l, const std::string& labels, const std::string& run) {
    for (std::size_t i = 0; i + 1 < run.size(); ++i)
        if (l.stride(labels, run[i]) != l.stride(labels, run[i + 1]) * l.extent(run[i + 1]))
            return -1;
    return run.empty() ? 0 : l.stride(labels, run.back());
}

// Whether BLAS reads an r x c matrix at these strides: one unit stride, the other a leading
// dimension at least the unit one's extent (an extent-1 dimension's stride is free).
bool blas_readable(std::int64_t r, std::int64_t sr, std::int64_t c, std::int64_t sc) {
    return ((c == 1 || sc == 1) && (r == 1 || sr >= c)) ||
           ((r == 1 || sr == 1) && (c == 1 || sc >= r));
}

// Whether operand `labels` reads in place as a `rows` x `cols` matrix; sets v's strides if so.
bool in_place(const Layout& l, const std::string& labels, const std::string& rows,
              const std::string& cols, GemmView& v) {
    const std::int64_t sr = run_stride(l, labels, rows), sc = run_stride(l, labels, cols);
    if (sr < 0 || sc < 0 || !blas_readable(l.extent(rows), sr, l.extent(cols), sc)) return false;
    v.rows_stride = sr;
    v.cols_stride = sc;
    return true;
}

// The canonical order [batch][rows][cols][extent-1 labels] of `labels`.
std::string canonical(const std::string& labels, const std::string& batch, const std::string& rows,
                      const std::string& cols) {
    std::string order = batch + rows + cols;
    for (char c : labels)
        if (!has(order, c)) order += c;
    return order;
}

// `labels` without extent-1 labels, which move no offset.
std::string sized(const Layout& l, const std::string& labels) {
    std::string kept;
    for (char c : labels)
        if (l.extent(c) != 1) kept += c;
    return kept;
}

// Whether `labels` are in canonical order but for extent-1 labels, which move no offset.
bool is_canonical(const Layout& l, const std::string& labels, const std::string& order) {
    return sized(l, labels) == sized(l, order);
}

// Sets v to permute `labels` into `layout` first (an operand), or the product computed in
// `layout` into `labels` after (the output).
void set_permute(const Layout& l, const std::string& labels, const std::string& layout,
                 bool is_output, GemmView& v) {
    const std::string& from = is_output ? layout : labels;
    const std::string& to = is_output ? labels : layout;
    for (char c : to) v.perm.push_back(from.find(c));
    for (char c : from) v.from.push_back(l.extent(c));
}

GemmView view_of(const Layout& l, const std::string& labels, const std::string& batch,
                 const std::string& rows, const std::string& cols, bool is_output,
                 bool canonical_only) {
    GemmView v;
    std::string layout = labels;
    const bool usable = canonical_only
                            ? is_canonical(l, labels, canonical(labels, batch, rows, cols)) &&
                                  in_place(l, labels, rows, cols, v)
                            : in_place(l, labels, rows, cols, v);
    if (!usable) {
        layout = canonical(labels, batch, rows, cols);
        in_place(l, layout, rows, cols, v);  // always readable: [rows][cols] contiguous
        set_permute(l, labels, layout, is_output, v);
    }
    for (char c : batch) v.batch_strides.push_back(l.stride(layout, c));
    return v;
}

// The orders a run of labels may take: as it appears in each of `where`.
std::vector<std::string> orders(const std::string& run, std::initializer_list<std::string> where) {
    std::vector<std::string> out;
    for (const std::string& labels : where) {
        std::string o;
        for (char c : labels)
            if (has(run, c)) o += c;
        if (o.size() == run.size() && std::find(out.begin(), out.end(), o) == out.end())
            out.push_back(o);
    }
    return out;
}

// Lanes below which the lanes product leaves too much of a vector idle (8 fill one of f32,
// two of f64) for it to beat permuting through memory for BLAS.
constexpr std::int64_t kMinLanes = 8;

// The batch labels innermost in `labels`: its longest suffix of sized labels that holds batch
// labels only.
std::string innermost_batch(const Layout& l, const std::string& labels, const std::string& batch) {
    const std::string s = sized(l, labels);
    std::size_t n = 0;
    while (n < s.size() && has(batch, s[s.size() - 1 - n])) ++n;
    return s.substr(s.size() - n);
}

// Elements a position's lanes may span in an operand read in place with its lanes apart (not
// innermost): packing then gathers them from lines that stay in L1 for the next positions
// (attention's `shd` with the heads as lanes: 8 heads x d elements). Wider, permuting the
// operand first reads it in fewer passes.
constexpr std::int64_t kMaxLaneSpan = 4096;

// How the lanes product reads `labels` (an operand, or the output when `is_output`) as a
// `rows` x `cols` matrix of `lanes`: in place where rows, cols and lanes are runs with one
// stride each (any strides: the lanes product packs its operands itself) and the lanes are
// innermost (the output) or span at most kMaxLaneSpan elements (an operand), else permuted to
// [outer batch][rows][cols][lanes], as view_of does.
GemmView lanes_view(const Layout& l, const std::string& labels, const std::string& outer,
                    const std::string& rows, const std::string& cols, const std::string& lanes,
                    bool is_output) {
    GemmView v;
    std::string layout = labels;
    const std::int64_t lane_stride = run_stride(l, labels, lanes);
    const bool lanes_usable =
        innermost_batch(l, labels, lanes) == lanes ||
        (!is_output && lane_stride >= 0 && lane_stride * l.extent(lanes) <= kMaxLaneSpan);
    if (!lanes_usable || run_stride(l, labels, rows) < 0 || run_stride(l, labels, cols) < 0) {
        layout = canonical(labels, outer, rows, cols + lanes);
        set_permute(l, labels, layout, is_output, v);
    }
    v.rows_stride = run_stride(l, layout, rows);
    v.cols_stride = run_stride(l, layout, cols);
    v.lanes_stride = std::max<std::int64_t>(1, run_stride(l, layout, lanes));
    for (char c : outer) v.batch_strides.push_back(l.stride(layout, c));
    return v;
}

// The cheapest plan (fewest elements permuted) that computes batch labels innermost in the
// output or an operand side by side as lanes, permuting what does not hold them innermost.
std::optional<GemmPlan> lanes_plan(const Layout& l, const std::string& a, const std::string& b,
                                   const std::string& o, const std::string& batch,
                                   const std::string& m, const std::string& n,
                                   const std::string& k) {
    std::optional<GemmPlan> best;
    std::vector<std::string> tried;
    for (const std::string* labels : {&o, &a, &b}) {
        const std::string lanes = innermost_batch(l, *labels, batch);
        if (l.extent(lanes) < kMinLanes ||
            std::find(tried.begin(), tried.end(), lanes) != tried.end())
            continue;
        tried.push_back(lanes);
        std::string outer;
        for (char c : sized(l, o))
            if (has(batch, c) && !has(lanes, c)) outer += c;
        for (const std::string& mo : orders(m, {o, a}))
            for (const std::string& no : orders(n, {o, b}))
                for (const std::string& ko : orders(k, {a, b})) {
                    GemmPlan p;
                    p.lanes = l.extent(lanes);
                    for (char c : outer) p.batch.push_back(l.extent(c));
                    p.m = l.extent(mo), p.n = l.extent(no), p.k = l.extent(ko);
                    p.a = lanes_view(l, a, outer, mo, ko, lanes, false);
                    p.b = lanes_view(l, b, outer, ko, no, lanes, false);
                    p.out = lanes_view(l, o, outer, mo, no, lanes, true);
                    if (!best || p.permuted_elements() < best->permuted_elements())
                        best = std::move(p);
                }
    }
    return best;
}

blasint blas_int(std::int64_t x) {
    if (x > std::numeric_limits<blasint>::max())
        throw Error("matrix extent " + std::to_string(x) + " is too large for BLAS", {},
                    ErrorKind::Failed);
    return static_cast<blasint>(x);
}

// BLAS's transpose flag and leading dimension for an r x c matrix at strides (sr, sc), which
// blas_readable accepted.
std::pair<CBLAS_TRANSPOSE, blasint> blas_layout(std::int64_t r, std::int64_t sr, std::int64_t c,
                                                std::int64_t sc) {
    if ((c == 1 || sc == 1) && (r == 1 || sr >= c))
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
    if (!((n == 1 || scn == 1) && (m == 1 || scm >= n))) {  // C column-major: C^T = B^T A^T
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
template <class T>
T* scratch(int use, std::int64_t elements) {
    thread_local std::vector<T> buffers[3];
    std::vector<T>& b = buffers[use];
    if (b.size() < static_cast<std::size_t>(elements)) b.resize(static_cast<std::size_t>(elements));
    return b.data();
}

template <class T>
const T* permuted(const GemmView& v, const T* data, int use) {
    T* out = scratch<T>(use, v.from.product());
    permute<T>(data, v.from, v.perm, out);
    return out;
}

}  // namespace

std::int64_t GemmPlan::batches() const {
    std::int64_t n = 1;
    for (std::int64_t e : batch) n *= e;
    return n;
}

std::int64_t GemmPlan::permuted_elements() const {
    std::int64_t n = 0;
    for (const GemmView* v : {&a, &b, &out})
        if (!v->perm.empty()) n += v->from.product();
    return n;
}

namespace {

// The BLAS plan that permutes fewest elements, and the lanes plan if there is one worth weighing
// (one exists and the BLAS plan permutes something).
struct GemmCandidates {
    GemmPlan blas;
    std::optional<GemmPlan> lanes;
};

GemmCandidates gemm_candidates(const std::string& a, const std::string& b, const std::string& o,
                               const std::vector<std::int64_t>& extent_of_letter, bool canonical) {
    const Layout l{extent_of_letter};
    std::string batch, m, n, k;  // extent-1 labels in none
    for (char c : a + b) {
        if (l.extent(c) == 1 || has(batch + m + n + k, c)) continue;
        if (has(a, c) && has(b, c))
            (has(o, c) ? batch : k) += c;
        else if (!has(o, c))
            throw Error("einsum: label '" + std::string(1, c) + "' is summed inside one operand");
        else
            (has(a, c) ? m : n) += c;
    }
    GemmCandidates out;
    std::int64_t best_cost = -1;
    for (const std::string& bo : orders(batch, {o, a, b}))
        for (const std::string& mo : orders(m, {o, a}))
            for (const std::string& no : orders(n, {o, b}))
                for (const std::string& ko : orders(k, {a, b})) {
                    GemmPlan p;
                    for (char c : bo) p.batch.push_back(l.extent(c));
                    p.m = l.extent(mo), p.n = l.extent(no), p.k = l.extent(ko);
                    p.a = view_of(l, a, bo, mo, ko, false, canonical);
                    p.b = view_of(l, b, bo, ko, no, false, canonical);
                    p.out = view_of(l, o, bo, mo, no, true, canonical);
                    const std::int64_t cost = p.permuted_elements();
                    if (best_cost < 0 || cost < best_cost)
                        out.blas = std::move(p), best_cost = cost;
                }
    if (best_cost > 0 && !canonical) out.lanes = lanes_plan(l, a, b, o, batch, m, n, k);
    return out;
}

}  // namespace

GemmPlan plan_gemm(const std::string& a, const std::string& b, const std::string& o,
                   const std::vector<std::int64_t>& extent_of_letter, bool canonical) {
    GemmCandidates c = gemm_candidates(a, b, o, extent_of_letter, canonical);
    if (c.lanes && c.lanes->permuted_elements() < c.blas.permuted_elements())
        return std::move(*c.lanes);
    return std::move(c.blas);
}

GemmPlan plan_gemm(const std::string& a, const std::string& b, const std::string& o,
                   const std::vector<std::int64_t>& extent_of_letter, const GemmPricing& pricing,
                   DType dtype) {
    GemmCandidates c = gemm_candidates(a, b, o, extent_of_letter, false);
    if (c.lanes && pricing.seconds(*c.lanes, dtype) < pricing.seconds(c.blas, dtype))
        return std::move(*c.lanes);
    return std::move(c.blas);
}

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
    // Dots make no BLAS call, so their batches may be split among the rank's threads (a BLAS
    // call inside a split would run its own threads on top).
    if (p.m == 1 && p.n == 1 && p.lanes == 1)
        parallel_for(p.batches(), std::max<std::int64_t>(1, kGrainElements / p.k), products);
    else
        products(0, p.batches());
    if (permute_out) permute<T>(c, p.out.from, p.out.perm, out, accumulate);
}

template void run_gemm_plan<float>(const GemmPlan&, const float*, const float*, float*, bool);
template void run_gemm_plan<double>(const GemmPlan&, const double*, const double*, double*, bool);

}  // namespace tra::kernels::cpu
