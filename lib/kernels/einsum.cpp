// einsum: a tile-level generalized contraction out[o] = agg over the other labels of
// join(A[..], B[..]). Matrix products (join=mul, agg=add; batched, transposed, or with runs of
// labels acting as one matrix dimension) go to BLAS; everything else runs one odometer over all
// labels.
#include <algorithm>
#include <map>
#include <optional>

#include "kernels/cpu_kernels.hpp"
#include "kernels/scalar_ops.hpp"

namespace tra::kernels::cpu {

namespace {

struct Spec {
    std::string text;                 // as written, for messages
    std::vector<std::string> inputs;  // labels of each operand
    std::string output;
};

Spec parse_spec(const std::string& text) {
    std::string s;
    for (char c : text)
        if (c != ' ') s += c;
    if (s.empty()) throw Error("einsum needs a spec, e.g. einsum(ik,kj->ij)");
    auto bad = [&](const std::string& why) {
        return Error("einsum: bad spec '" + text + "': " + why);
    };
    std::size_t arrow = s.find("->");
    if (arrow == std::string::npos || s.find("->", arrow + 2) != std::string::npos)
        throw bad("expected one '->', e.g. ik,kj->ij");
    Spec spec;
    spec.text = text;
    spec.output = s.substr(arrow + 2);
    std::string lhs = s.substr(0, arrow);
    for (std::size_t start = 0;;) {
        std::size_t comma = lhs.find(',', start);
        spec.inputs.push_back(lhs.substr(start, comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (spec.inputs.size() > 2)
        throw bad("einsum takes 1 or 2 operands, got " + std::to_string(spec.inputs.size()));
    auto check_labels = [&](const std::string& labels, const std::string& what) {
        for (std::size_t i = 0; i < labels.size(); ++i) {
            if (labels[i] < 'a' || labels[i] > 'z')
                throw bad("labels are single lowercase letters, got '" + std::string(1, labels[i]) +
                          "'");
            if (labels.find(labels[i], i + 1) != std::string::npos)
                throw bad("label '" + std::string(1, labels[i]) + "' repeats in " + what);
        }
    };
    for (std::size_t i = 0; i < spec.inputs.size(); ++i)
        check_labels(spec.inputs[i], "operand " + std::to_string(i + 1));
    check_labels(spec.output, "the output");
    for (char c : spec.output)
        if (std::none_of(spec.inputs.begin(), spec.inputs.end(),
                         [c](const std::string& in) { return in.find(c) != std::string::npos; }))
            throw bad("output label '" + std::string(1, c) + "' appears in no operand");
    return spec;
}

Spec checked_spec(const KernelParams& p) {
    Spec spec = parse_spec(p.spec);
    if (!with_scalar_op(p.join_op, [](auto) {}))
        throw Error("einsum: unknown join '" + p.join_op + "' (mul, add, sub, div, max, min)");
    if (p.agg_op != "add" && p.agg_op != "mul" && p.agg_op != "max" && p.agg_op != "min")
        throw Error("einsum: unknown agg '" + p.agg_op + "' (add, mul, max, min)");
    return spec;
}

// Every label once, output labels first, with its extent.
struct Labels {
    std::string names;
    std::vector<std::int64_t> extents;
};

Checked<Labels> label_extents(const Spec& spec, std::span<const Shape> ops) {
    if (auto problem =
            operand_count_problem("einsum(" + spec.text + ")", ops.size(), spec.inputs.size()))
        return *problem;
    Labels l;
    l.names = spec.output;
    for (const std::string& in : spec.inputs)
        for (char c : in)
            if (l.names.find(c) == std::string::npos) l.names += c;
    l.extents.assign(l.names.size(), -1);
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const std::string& in = spec.inputs[i];
        if (ops[i].size() != in.size())
            return Error("einsum: operand " + std::to_string(i + 1) + " has shape " + ops[i].str() +
                         " but '" + in + "' names " + std::to_string(in.size()) + " labels");
        for (std::size_t d = 0; d < in.size(); ++d) {
            std::int64_t& e = l.extents[l.names.find(in[d])];
            if (e >= 0 && e != ops[i][d])
                return Error("einsum: label '" + std::string(1, in[d]) + "' has extents " +
                             std::to_string(e) + " and " + std::to_string(ops[i][d]) + " in " +
                             shapes_str(ops));
            e = ops[i][d];
        }
    }
    return l;
}

Checked<Shape> einsum_shape(const Spec& spec, std::span<const Shape> ops) {
    const Checked<Labels> l = label_extents(spec, ops);
    if (!l) return l.problem();
    Shape out;
    for (std::size_t i = 0; i < spec.output.size(); ++i) out.push_back(l->extents[i]);
    return out;
}

// Element strides of `labels` (an operand's or the output's) for every label in `all`; 0 for
// labels the operand lacks, so one odometer walks all operands.
std::vector<std::int64_t> strides_for(const std::string& labels, const Labels& all) {
    std::vector<std::int64_t> strides(all.names.size(), 0);
    std::int64_t s = 1;
    for (std::size_t d = labels.size(); d-- > 0;) {
        std::size_t i = all.names.find(labels[d]);
        strides[i] = s;
        s *= all.extents[i];
    }
    return strides;
}

struct TakeFirst {
    template <class T>
    T operator()(T a, T) const {
        return a;
    }
};

template <class T, class Join, class Agg>
void contract(const Labels& l, const T* a, const std::vector<std::int64_t>& sa, const T* b,
              const std::vector<std::int64_t>& sb, T* out, const std::vector<std::int64_t>& so,
              Join join, Agg agg) {
    std::size_t n = l.names.size();
    for (std::int64_t e : l.extents)
        if (e == 0) return;  // nothing to visit; out already holds the agg identity
    std::vector<std::int64_t> idx(n, 0);
    std::int64_t oa = 0, ob = 0, oo = 0;
    T zero = 0;
    for (;;) {
        out[oo] = agg(out[oo], join(a[oa], b ? b[ob] : zero));
        std::size_t d = n;
        for (; d-- > 0;) {
            oa += sa[d], ob += sb[d], oo += so[d];
            if (++idx[d] < l.extents[d]) break;
            oa -= sa[d] * idx[d], ob -= sb[d] * idx[d], oo -= so[d] * idx[d];
            idx[d] = 0;
        }
        if (d == static_cast<std::size_t>(-1)) return;
    }
}

// A contraction BLAS can do (join=mul, agg=add): out[b][p][q] = sum_k L[b][p][k] R[b][k][q] up to
// transposes, where b (batch: labels in both operands and the output), p, q (free labels of one
// operand each) and k (contracted) are runs of labels, possibly empty, laid out contiguously and
// in the same order wherever they appear, with b leading everywhere. Then every batch is one
// gemm on contiguous blocks, transposes folded into the BLAS flags, e.g. "ik,kj->ij",
// "ki,jk->ji", "bij,bjk->bik", "ijk,kl->ijl", "ne,ne->n" (a row-wise dot, M = N = 1).
struct GemmShape {
    bool swap = false;  // the output's rows come from operand 2
    bool trans_l = false, trans_r = false;
    std::int64_t batch = 1, m = 1, n = 1, k = 1;
};

std::optional<GemmShape> as_gemm(const Spec& spec, const KernelParams& p, const Labels& l) {
    if (spec.inputs.size() != 2 || p.join_op != "mul" || p.agg_op != "add") return std::nullopt;
    const std::string &a = spec.inputs[0], &b = spec.inputs[1], &o = spec.output;
    auto in = [](const std::string& s, char c) { return s.find(c) != std::string::npos; };
    for (char c : a + b)  // a label summed inside one operand alone is no matrix product
        if (!in(o, c) && !(in(a, c) && in(b, c))) return std::nullopt;
    std::string batch, rows, cols, inner;  // rows: o's free labels from a; cols: from b
    for (char c : o) (in(a, c) && in(b, c) ? batch : in(a, c) ? rows : cols) += c;
    for (char c : a)
        if (!in(o, c)) inner += c;
    auto starts = [&](const std::string& s) { return s.compare(0, batch.size(), batch) == 0; };
    if (!starts(a) || !starts(b) || !starts(o)) return std::nullopt;
    const std::string ra = a.substr(batch.size()), rb = b.substr(batch.size()),
                      ro = o.substr(batch.size());
    GemmShape g;
    if (ro == cols + rows && ro != rows + cols)
        g.swap = true;
    else if (ro != rows + cols)
        return std::nullopt;
    const std::string& left = g.swap ? rb : ra;
    const std::string& right = g.swap ? ra : rb;
    const std::string& p_run = g.swap ? cols : rows;
    const std::string& q_run = g.swap ? rows : cols;
    if (left == inner + p_run && left != p_run + inner)
        g.trans_l = true;
    else if (left != p_run + inner)
        return std::nullopt;
    if (right == q_run + inner && right != inner + q_run)
        g.trans_r = true;
    else if (right != inner + q_run)
        return std::nullopt;
    auto extent = [&](const std::string& run) {
        std::int64_t e = 1;
        for (char c : run) e *= l.extents[l.names.find(c)];
        return e;
    };
    g.batch = extent(batch), g.m = extent(p_run), g.n = extent(q_run), g.k = extent(inner);
    return g;
}

// out = L R per batch, or out += L R when `accumulate`; out is fully written either way.
template <class T>
void batched_gemm(const GemmShape& g, const T* left, const T* right, T* out, bool accumulate) {
    for (std::int64_t i = 0; i < g.batch; ++i) {
        const T* l = left + i * g.m * g.k;
        const T* r = right + i * g.k * g.n;
        if (g.m == 1 && g.n == 1) {  // a dot product: BLAS call overhead would dominate
            T sum = 0;
            for (std::int64_t j = 0; j < g.k; ++j) sum += l[j] * r[j];
            out[i] = accumulate ? out[i] + sum : sum;
        } else {
            gemm<T>(g.trans_l, g.trans_r, g.m, g.n, g.k, l, r, out + i * g.m * g.n, accumulate);
        }
    }
}

// acc += einsum(ops) when the spec is a matrix product (as_gemm); false otherwise.
bool einsum_accumulate(Tile& acc, std::span<const Tile* const> ops, const KernelParams& p) {
    Spec spec = checked_spec(p);
    std::vector<Shape> shapes = shapes_of(ops);
    Labels l = label_extents(spec, shapes).value();
    const std::optional<GemmShape> g = as_gemm(spec, p, l);
    if (!g || einsum_shape(spec, shapes).value() != acc.shape()) return false;
    visit_dtype(acc.dtype(), [&](auto t) {
        using T = decltype(t);
        batched_gemm<T>(*g, ops[g->swap ? 1 : 0]->data<T>(), ops[g->swap ? 0 : 1]->data<T>(),
                        acc.data<T>(), true);
    });
    return true;
}

Tile einsum_apply(std::span<const Tile* const> ops, const KernelParams& p) {
    Spec spec = checked_spec(p);
    DType d = common_dtype("einsum", ops);
    std::vector<Shape> shapes = shapes_of(ops);
    Labels l = label_extents(spec, shapes).value();
    const std::optional<GemmShape> g = as_gemm(spec, p, l);
    // Both paths write every element (the gemm path through BLAS, the other fills first).
    Tile out = Tile::uninitialized(d, einsum_shape(spec, shapes).value());
    visit_dtype(d, [&](auto t) {
        using T = decltype(t);
        T* o = out.data<T>();
        if (g) {
            batched_gemm<T>(*g, ops[g->swap ? 1 : 0]->data<T>(), ops[g->swap ? 0 : 1]->data<T>(), o,
                            false);
            return;
        }
        std::fill(o, o + out.elements(), static_cast<T>(aggregation_identity(p.agg_op)));
        const T* a = ops[0]->data<T>();
        const T* b = ops.size() > 1 ? ops[1]->data<T>() : nullptr;
        std::vector<std::int64_t> sa = strides_for(spec.inputs[0], l);
        std::vector<std::int64_t> sb(l.names.size(), 0);
        if (b) sb = strides_for(spec.inputs[1], l);
        std::vector<std::int64_t> so = strides_for(spec.output, l);
        auto run_agg = [&](auto join) {
            with_scalar_op(p.agg_op,
                           [&](auto agg) { contract(l, a, sa, b, sb, o, so, join, agg); });
        };
        if (b)
            with_scalar_op(p.join_op, run_agg);
        else
            run_agg(TakeFirst{});
    });
    return out;
}

// "ik,kj->ij" -> 2 * i*k*j when some label is summed (a contraction); 0 otherwise, since an
// elementwise einsum does one operation per element, not a multiply-add. Reads the spec as
// written and never throws: the cost model asks before any tile exists.
std::int64_t einsum_flops(std::span<const Shape> ops, const KernelParams& p) {
    if (ops.size() != 2) return 0;
    const Shape& left = ops[0];
    const Shape& right = ops[1];
    const std::string& spec = p.spec;
    auto comma = spec.find(','), arrow = spec.find("->");
    if (comma == std::string::npos || arrow == std::string::npos || comma > arrow) return 0;
    std::string a = spec.substr(0, comma), b = spec.substr(comma + 1, arrow - comma - 1),
                o = spec.substr(arrow + 2);
    if (a.size() != left.size() || b.size() != right.size()) return 0;
    std::map<char, std::int64_t> extent;
    for (std::size_t i = 0; i < a.size(); ++i) extent[a[i]] = left[i];
    for (std::size_t i = 0; i < b.size(); ++i) extent[b[i]] = right[i];
    bool contracts = false;
    for (char c : a)
        if (b.find(c) != std::string::npos && o.find(c) == std::string::npos) contracts = true;
    if (!contracts) return 0;
    std::int64_t f = 2;
    for (const auto& [label, n] : extent) f *= n;
    return f;
}

}  // namespace

EinsumLayout einsum_layout(const KernelParams& p, std::span<const Shape> ops) {
    Spec spec = checked_spec(p);
    Labels l = label_extents(spec, ops).value();
    EinsumLayout out;
    out.shape = einsum_shape(spec, ops).value();
    out.extents = l.extents;
    out.output_labels = spec.output.size();
    out.strides_a = strides_for(spec.inputs[0], l);
    out.strides_b.assign(l.names.size(), 0);
    if (spec.inputs.size() > 1) out.strides_b = strides_for(spec.inputs[1], l);
    out.strides_out = strides_for(spec.output, l);
    // The GPU runs every matrix product (as_gemm) as one cuBLAS call, batched or not.
    if (const std::optional<GemmShape> g = as_gemm(spec, p, l)) {
        out.gemm = true;
        out.swap = g->swap;
        out.trans_l = g->trans_l;
        out.trans_r = g->trans_r;
        out.batch = g->batch;
        out.m = g->m;
        out.n = g->n;
        out.inner = g->k;
    }
    return out;
}

Kernel einsum_kernel() {
    Kernel k;
    k.name = "einsum";
    // Really 1 or 2 by params.spec; operand_count tells which.
    k.arity = 2;
    k.summary = "tile contraction by params.spec (\"ik,kj->ij\"), join_op and agg_op";
    k.operand_count = [](const KernelParams& p) {
        return static_cast<int>(checked_spec(p).inputs.size());
    };
    k.describe = [](const KernelParams& p) {
        return "einsum(" + p.spec + "; join=" + p.join_op + ", agg=" + p.agg_op + ")";
    };
    k.flops = einsum_flops;
    // A matrix product (as_gemm) is one gemm per batch block; anything else runs the loop.
    k.gemm_calls = [](std::span<const Shape> ops,
                      const KernelParams& p) -> std::optional<std::int64_t> {
        const Spec spec = checked_spec(p);
        const Checked<Labels> l = label_extents(spec, ops);
        if (!l) return std::nullopt;
        const std::optional<GemmShape> g = as_gemm(spec, p, l.value());
        if (!g) return std::nullopt;
        return g->batch;
    };
    // Only matrix products accumulate (as_gemm), adding each product: gemm with beta = 1.
    k.properties.accumulates_with = "add";
    k.output_shape = [](std::span<const Shape> ops, const KernelParams& p) {
        return einsum_shape(checked_spec(p), ops);
    };
    k.apply = [](std::span<const Tile* const> ops, const KernelParams& p, const TilePosition&) {
        return einsum_apply(ops, p);
    };
    k.accumulate = einsum_accumulate;
    return k;
}

}  // namespace tra::kernels::cpu
