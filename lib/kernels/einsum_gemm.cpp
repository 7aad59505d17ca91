// Planning einsum's matrix products (einsum_gemm.hpp; run_gemm_plan.cpp runs them). Extent-1
// labels take no part in the layout (they move no offset).
#include "kernels/einsum_gemm.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "core/error.hpp"

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

// Whether BLAS reads an r x c matrix at these strides: row-major or column-major.
bool blas_readable(std::int64_t r, std::int64_t sr, std::int64_t c, std::int64_t sc) {
    return row_major(r, sr, c, sc) || row_major(c, sc, r, sr);
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

// How `labels` are read as a batch of `rows` x `cols` matrices: in place where BLAS can read
// them (only in canonical order when `canonical_only`), else permuted to the canonical order
// or, when `transposed`, to [batch][cols][rows].
GemmView view_of(const Layout& l, const std::string& labels, const std::string& batch,
                 const std::string& rows, const std::string& cols, bool is_output,
                 bool canonical_only, bool transposed = false) {
    GemmView v;
    std::string layout = labels;
    const bool usable = canonical_only
                            ? is_canonical(l, labels, canonical(labels, batch, rows, cols)) &&
                                  in_place(l, labels, rows, cols, v)
                            : in_place(l, labels, rows, cols, v);
    if (!usable) {
        layout = transposed ? canonical(labels, batch, cols, rows)
                            : canonical(labels, batch, rows, cols);
        in_place(l, layout, rows, cols, v);  // always readable: contiguous, either way
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

int batch_threads(const GemmPlan& plan, int threads) {
    const std::int64_t batches = plan.batches();
    if (threads <= 1 || plan.lanes > 1 || (plan.m == 1 && plan.n == 1) || batches < threads)
        return 1;
    return batches % threads == 0 || batches >= 8 * std::int64_t{threads} ? threads : 1;
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
                    p.out = view_of(l, o, bo, mo, no, true, canonical);
                    // An output read column-major makes BLAS compute its transpose, B^T A^T
                    // (strided_gemm): B, if permuted anyway, is then laid out [N][K], so that
                    // BLAS reads its first operand untransposed (a transposed first operand ran
                    // 5 % slower; the second, either way alike: f64 256^3, OpenBLAS 0.3.21 on
                    // a Zen 4 EPYC).
                    const bool swap =
                        !canonical && !row_major(p.m, p.out.rows_stride, p.n, p.out.cols_stride);
                    p.a = view_of(l, a, bo, mo, ko, false, canonical);
                    p.b = view_of(l, b, bo, ko, no, false, canonical, swap);
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

}  // namespace tra::kernels::cpu
