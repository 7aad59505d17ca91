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
#include "kernels/einsum_spec.hpp"
#include "kernels/expression.hpp"
#include "kernels/parallel_for.hpp"
#include "kernels/scalar_ops.hpp"
#include "kernels/thread_memo.hpp"
#include "kernels/tile_permute.hpp"

namespace tra::kernels::cpu {

namespace {

using namespace einsum;  // the spec and its labels (einsum_spec.hpp)

// The join of a one-operand einsum: the operand itself.
struct TakeFirst {
    template <class T>
    T operator()(T a, T) const {
        return a;
    }
};

// One einsum call worked out for its operands' shapes and dtype: what every tile of those
// shapes shares, kept per thread (ThreadMemo) so a loop of tiny tiles pays for it once.
struct Prepared {
    Spec spec;
    Labels labels;
    Shape shape;  // the output's
    // A matrix product (join mul, agg add): its operands, summed first where a label is in one
    // alone, and the plan of the GEMMs that follow.
    bool product = false;
    ProductOperands operands;
    GemmPlan plan;
};

Prepared prepare(const KernelParams& p, std::span<const Shape> shapes, DType dtype) {
    Prepared c;
    c.spec = checked_spec(p);
    c.labels = label_extents(c.spec, shapes).value();
    c.shape = output_shape(c.spec, c.labels);
    c.product = is_matrix_product(c.spec, p);
    if (!c.product) return c;
    c.operands = product_operands(c.spec);
    const std::string(&in)[2] = c.operands.labels;
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
        if (c.operands.reduce[i].empty()) continue;
        KernelParams sum;
        sum.spec = c.operands.reduce[i];
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
    out.shape = output_shape(spec, l);
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
        const ProductOperands o = product_operands(spec);
        out.reduce[0] = o.reduce[0];
        out.reduce[1] = o.reduce[1];
        out.plan = plan_gemm(o.labels[0], o.labels[1], spec.output, extent_of_letter(l), true);
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
