#include "kernels/einsum_spec.hpp"

#include <algorithm>

#include "kernels/cpu_kernels.hpp"
#include "kernels/expression.hpp"
#include "kernels/scalar_ops.hpp"

namespace tra::kernels::cpu::einsum {

namespace {

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

}  // namespace

Spec checked_spec(const KernelParams& p) {
    Spec spec = parse_spec(p.spec);
    if (p.join_op == "expr") {
        // An expression join (variables a and b): checked here, evaluated by the loop. The
        // program is compiled once per thread (checked_spec runs for many tiles), the same one
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

// The output's extents: the first labels of `l` are the output's (label_extents).
Shape output_shape(const Spec& spec, const Labels& l) {
    Shape out;
    for (std::size_t i = 0; i < spec.output.size(); ++i) out.push_back(l.extents[i]);
    return out;
}

Checked<Shape> einsum_shape(const Spec& spec, std::span<const Shape> ops) {
    const Checked<Labels> l = label_extents(spec, ops);
    if (!l) return l.problem();
    return output_shape(spec, *l);
}

bool is_matrix_product(const Spec& spec, const KernelParams& p) {
    return spec.inputs.size() == 2 && p.join_op == "mul" && p.agg_op == "add";
}

ProductOperands product_operands(const Spec& spec) {
    ProductOperands o{{spec.inputs[0], spec.inputs[1]}, {}};
    for (int i = 0; i < 2; ++i) {
        const std::string solo = solo_labels(o.labels[i], o.labels[1 - i], spec.output);
        if (solo.empty()) continue;
        o.reduce[i] = o.labels[i] + "->" + without(o.labels[i], solo);
        o.labels[i] = without(o.labels[i], solo);
    }
    return o;
}

std::vector<std::int64_t> extent_of_letter(const Labels& l) {
    std::vector<std::int64_t> e(26, 1);
    for (std::size_t i = 0; i < l.names.size(); ++i)
        e[static_cast<std::size_t>(l.names[i] - 'a')] = l.extents[i];
    return e;
}

}  // namespace tra::kernels::cpu::einsum
