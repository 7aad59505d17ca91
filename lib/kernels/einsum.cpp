// einsum: a tile-level generalized contraction out[o] = agg over the other labels of
// join(A[..], B[..]). Every binary contraction with join=mul, agg=add is a batch of matrix
// products (einsum_gemm.hpp: in place where strides allow, else permuted into GEMM layout);
// everything else runs one odometer over all labels, its innermost label the one with the
// smallest strides.
#include <algorithm>
#include <map>
#include <memory>
#include <optional>

#include "kernels/cpu_kernels.hpp"
#include "kernels/einsum_gemm.hpp"
#include "kernels/einsum_loop.hpp"
#include "kernels/expression.hpp"
#include "kernels/parallel_for.hpp"
#include "kernels/scalar_ops.hpp"
#include "kernels/thread_memo.hpp"
#include "kernels/tile_permute.hpp"

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
    if (p.join_op == "expr") {
        // An expression join (variables a and b): checked here, evaluated by the loop. The
        // program is compiled once per thread (checked_spec runs for every tile), the same one
        // the loop then looks up.
        try {
            expr::compiled(p.expr, expr::Context::Join);
        } catch (const Error& e) {
            throw Error("einsum: join " + e.message());
        }
    } else if (!with_scalar_op(p.join_op, [](auto) {})) {
        throw Error("einsum: unknown join '" + p.join_op +
                    "' (mul, add, sub, div, max, min, or an expression)");
    }
    if (!with_aggregation_op(p.agg_op, [](auto) {}))
        throw Error("einsum: unknown agg '" + p.agg_op + "' (add, mul, max, min)");
    return spec;
}

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

// The join of a one-operand einsum: the operand itself.
struct TakeFirst {
    template <class T>
    T operator()(T a, T) const {
        return a;
    }
};

bool is_matrix_product(const Spec& spec, const KernelParams& p) {
    return spec.inputs.size() == 2 && p.join_op == "mul" && p.agg_op == "add";
}

// The labels of `labels` that are in neither `other` nor `out`: summed inside one operand.
std::string solo_labels(const std::string& labels, const std::string& other,
                        const std::string& out) {
    std::string solo;
    for (char c : labels)
        if (other.find(c) == std::string::npos && out.find(c) == std::string::npos) solo += c;
    return solo;
}

std::string without(const std::string& labels, const std::string& drop) {
    std::string kept;
    for (char c : labels)
        if (drop.find(c) == std::string::npos) kept += c;
    return kept;
}

std::vector<std::int64_t> extent_of_letter(const Labels& l) {
    std::vector<std::int64_t> e(26, 1);
    for (std::size_t i = 0; i < l.names.size(); ++i)
        e[static_cast<std::size_t>(l.names[i] - 'a')] = l.extents[i];
    return e;
}

// One einsum call worked out for its operands' shapes and dtype: what every tile of those
// shapes shares, kept per thread (ThreadMemo) so a loop of tiny tiles pays for it once.
struct Prepared {
    Spec spec;
    Labels labels;
    Shape shape;  // the output's
    // A matrix product (join mul, agg add): the sums of labels inside one operand alone, done
    // first ("" where none), and the plan of the GEMMs that follow.
    bool product = false;
    std::string reduce[2];
    GemmPlan plan;
};

Prepared prepare(const KernelParams& p, std::span<const Shape> shapes, DType dtype) {
    Prepared c;
    c.spec = checked_spec(p);
    c.labels = label_extents(c.spec, shapes).value();
    for (std::size_t i = 0; i < c.spec.output.size(); ++i) c.shape.push_back(c.labels.extents[i]);
    c.product = is_matrix_product(c.spec, p);
    if (!c.product) return c;
    std::string in[2] = {c.spec.inputs[0], c.spec.inputs[1]};
    for (int i = 0; i < 2; ++i) {
        const std::string solo = solo_labels(in[i], in[1 - i], c.spec.output);
        if (solo.empty()) continue;
        c.reduce[i] = in[i] + "->" + without(in[i], solo);
        in[i] = without(in[i], solo);
    }
    // Lanes or BLAS as this process's pricing says (gemm_pricing.hpp), else fewest permuted.
    const std::shared_ptr<const GemmPricing> pricing = gemm_pricing();
    c.plan = pricing ? plan_gemm(in[0], in[1], c.spec.output, extent_of_letter(c.labels), *pricing,
                                 dtype)
                     : plan_gemm(in[0], in[1], c.spec.output, extent_of_letter(c.labels));
    return c;
}

std::shared_ptr<const Prepared> prepared(std::span<const Tile* const> ops, const KernelParams& p,
                                         DType dtype) {
    thread_local ThreadMemo<Prepared> memo(256);
    thread_local std::string key;  // reused: most calls only look up
    // Everything prepare reads: the params, the shapes, the dtype and the installed pricing.
    const auto append = [](std::int64_t v) {
        key.append(reinterpret_cast<const char*>(&v), sizeof v);
    };
    key.clear();
    for (const std::string* s : {&p.spec, &p.join_op, &p.expr, &p.agg_op}) {
        append(static_cast<std::int64_t>(s->size()));
        key += *s;
    }
    append(static_cast<std::int64_t>(dtype));
    append(static_cast<std::int64_t>(gemm_pricing_generation()));
    for (const Tile* t : ops) {
        append(static_cast<std::int64_t>(t->shape().size()));
        for (std::int64_t e : t->shape()) append(e);
    }
    return memo.get(key, [&] { return prepare(p, shapes_of(ops), dtype); });
}

Tile einsum_apply(std::span<const Tile* const> ops, const KernelParams& p);

// out = (or += when `accumulate`) a matrix product's einsum; a label summed inside one operand
// alone is summed first, by the loop, then the product is a batch of GEMMs.
void multiply(const Prepared& c, std::span<const Tile* const> ops, Tile& out, bool accumulate) {
    Tile reduced[2];
    const Tile* use[2] = {ops[0], ops[1]};
    for (int i = 0; i < 2; ++i) {
        if (c.reduce[i].empty()) continue;
        KernelParams sum;
        sum.spec = c.reduce[i];
        sum.join_op = "mul";
        sum.agg_op = "add";
        reduced[i] = einsum_apply(std::span<const Tile* const>(&ops[i], 1), sum);
        use[i] = &reduced[i];
    }
    visit_dtype(out.dtype(), [&](auto t) {
        using T = decltype(t);
        run_gemm_plan<T>(c.plan, use[0]->data<T>(), use[1]->data<T>(), out.data<T>(), accumulate);
    });
}

// acc += einsum(ops) for matrix products (join mul, agg add); false for anything else.
bool einsum_accumulate(Tile& acc, std::span<const Tile* const> ops, const KernelParams& p) {
    const DType d = common_dtype("einsum", ops);
    const std::shared_ptr<const Prepared> c = prepared(ops, p, d);
    if (!c->product || c->shape != acc.shape()) return false;
    multiply(*c, ops, acc, true);
    return true;
}

Tile einsum_apply(std::span<const Tile* const> ops, const KernelParams& p) {
    const DType d = common_dtype("einsum", ops);
    const std::shared_ptr<const Prepared> prep = prepared(ops, p, d);
    const Spec& spec = prep->spec;
    const Labels& l = prep->labels;
    if (ops.size() == 1 && spec.output.size() == spec.inputs[0].size()) {
        // Nothing summed: agg(identity, x) = x for every agg, so this is a transpose.
        std::vector<std::size_t> perm;
        for (char c : spec.output) perm.push_back(spec.inputs[0].find(c));
        return permute_tile(*ops[0], perm);
    }
    // Both paths write every element (GEMM or its empty-sum zeros; the loop fills first).
    Tile out = Tile::uninitialized(d, prep->shape);
    if (prep->product) {
        multiply(*prep, ops, out, false);
        return out;
    }
    visit_dtype(d, [&](auto t) {
        using T = decltype(t);
        T* o = out.data<T>();
        const T identity = static_cast<T>(aggregation_identity(p.agg_op));
        parallel_for(out.elements(), 1 << 16, [&](std::int64_t begin, std::int64_t end) {
            std::fill(o + begin, o + end, identity);
        });
        const bool binary = ops.size() > 1;
        const T* a = ops[0]->data<T>();
        const T* b = binary ? ops[1]->data<T>() : a;  // read at stride 0 when unary, unused
        std::vector<std::int64_t> sa = strides_for(spec.inputs[0], l);
        std::vector<std::int64_t> sb(l.names.size(), 0);
        if (binary) sb = strides_for(spec.inputs[1], l);
        std::vector<std::int64_t> so = strides_for(spec.output, l);
        auto run_agg = [&](auto join) {
            with_aggregation_op(p.agg_op, [&](auto agg) {
                contract_threaded(l, a, sa, b, sb, o, so,
                                  [&](const Labels& part, const T* pa, const T* pb, T* po) {
                                      contract(part, pa, sa, pb, sb, po, so, join, agg);
                                  });
            });
        };
        if (binary && p.join_op == "expr")
            contract_expression(l, a, sa, b, sb, o, so, p.expr, p.agg_op);
        else if (binary)
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
    // The GPU runs matrix products as one cuBLAS call on operands in canonical order, a label
    // summed inside one operand alone summed first (by the loop kernel).
    if (is_matrix_product(spec, p)) {
        out.gemm = true;
        std::string in[2] = {spec.inputs[0], spec.inputs[1]};
        for (int i = 0; i < 2; ++i) {
            const std::string solo = solo_labels(in[i], in[1 - i], spec.output);
            if (solo.empty()) continue;
            out.reduce[i] = in[i] + "->" + without(in[i], solo);
            in[i] = without(in[i], solo);
        }
        out.plan = plan_gemm(in[0], in[1], spec.output, extent_of_letter(l), true);
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
        const std::string join = p.join_op == "expr" ? "expr(" + p.expr + ")" : p.join_op;
        return "einsum(" + p.spec + "; join=" + join + ", agg=" + p.agg_op + ")";
    };
    k.flops = einsum_flops;
    // A matrix product (join mul, agg add) is one GEMM per batch index: per assignment of the
    // labels in both operands and the output. Its m are the output labels of the first operand
    // alone, n those of the second alone, k the labels the two share and sum. A label summed
    // inside one operand alone is summed before the GEMM (by the loop). Anything else runs
    // the loop.
    k.gemm_calls = [](std::span<const Shape> ops,
                      const KernelParams& p) -> std::optional<GemmCalls> {
        const Spec spec = checked_spec(p);
        const Checked<Labels> l = label_extents(spec, ops);
        if (!l || !is_matrix_product(spec, p)) return std::nullopt;
        GemmCalls g{1, 1, 1, 1};
        for (std::size_t i = 0; i < l->names.size(); ++i) {
            const char label = l->names[i];
            const bool in_a = spec.inputs[0].find(label) != std::string::npos;
            const bool in_b = spec.inputs[1].find(label) != std::string::npos;
            const bool in_out = spec.output.find(label) != std::string::npos;
            if (in_a && in_b)
                (in_out ? g.count : g.k) *= l->extents[i];
            else if (in_out)
                (in_a ? g.m : g.n) *= l->extents[i];
        }
        return g;
    };
    // Matrix products accumulate, adding each product: GEMM with beta = 1.
    k.properties.accumulates_with = "add";
    // f(0) = 0 depends on the join (below), so the kernel-wide answer is no.
    k.properties.zero_preserving = false;
    // A binary spec joins zeros into join(0, 0), 0 for every named join but div (0 / 0 is NaN)
    // and for an expression as its evaluation at zeros says, then
    // aggregates those over the summed labels; a unary spec aggregates the operand's zeros
    // directly. add, mul, max and min of zeros are all 0. (An empty range would give agg's
    // identity, 1 or -inf or inf, but tiles have positive extents, so no range is empty.)
    k.properties_of = [base = k.properties](const KernelParams& p) {
        KernelProperties props = base;
        // One operand: any aggregation of zeros is 0. Two: join(0, 0) decides, evaluated.
        props.zero_preserving = true;
        if (checked_spec(p).inputs.size() == 2 && p.join_op == "expr")
            props.zero_preserving = expr::compiled(p.expr, expr::Context::Join).zero_preserving;
        else if (checked_spec(p).inputs.size() == 2)
            with_scalar_op(p.join_op,
                           [&](auto join) { props.zero_preserving = join(0.0, 0.0) == 0.0; });
        // join mul: a zero operand makes every product zero, and add, max and min of zeros
        // are 0.
        props.zero_annihilates = checked_spec(p).inputs.size() == 2 && p.join_op == "mul";
        // Sums, products, differences, maxima and minima of finite values are finite.
        props.finite = p.join_op != "div" && p.join_op != "expr";
        return props;
    };
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
