#include "tra/einsum_diagonal.hpp"

#include <vector>

#include "tra/einsum_lowering.hpp"

namespace tra {

namespace {

// Each label once, in order of first appearance: "jbje" -> "jbe".
std::string distinct(const std::string& labels) {
    std::string out;
    for (char c : labels)
        if (out.find(c) == std::string::npos) out += c;
    return out;
}

// The operand must fit its labels, and the dimensions of a repeated label must be tiled alike:
// the diagonal is taken tile by tile, which is exact only when the tile grids coincide.
// retile_operands (einsum_retile.hpp) has made them alike or refused the step already; checked
// again because a wrong grid would give wrong numbers, not an error.
void check_operand(const Node& n, const std::string& labels, const SourceLocation& where) {
    if (n.type.key_arity != labels.size() || n.type.rank() != labels.size() || !n.is_tensor())
        throw Error("einsum operand " + n.name + " must be a plain tensor with " +
                        std::to_string(labels.size()) + " dimensions (\"" + labels +
                        "\"), but it is " + n.type.str() +
                        (n.is_tensor() ? "" : " with holes or an uneven key"),
                    where);
    for (std::size_t q = 0; q < labels.size(); ++q) {
        const std::size_t p = labels.find(labels[q]);
        if (n.frontier[p] == n.frontier[q] && n.type.bound[p] == n.type.bound[q]) continue;
        auto tiling = [&](std::size_t d) {
            return std::to_string(n.frontier[d]) + " x " + std::to_string(n.type.bound[d]);
        };
        throw Error(std::string("label '") + labels[q] + "' is tiled as " + tiling(p) +
                        " at dimension " + std::to_string(p) + " of " + n.name + " but as " +
                        tiling(q) + " at dimension " + std::to_string(q) +
                        "; the dimensions of a repeated label must be tiled alike (tiles x "
                        "tile size)",
                    where);
    }
}

// "k0 == k1 && k0 == k2": the tuples on the key diagonal of every repeated label.
std::string on_key_diagonal(const std::string& labels) {
    std::string where;
    for (std::size_t q = 0; q < labels.size(); ++q) {
        const std::size_t p = labels.find(labels[q]);
        if (p != q)
            where +=
                (where.empty() ? "k" : " && k") + std::to_string(p) + " == k" + std::to_string(q);
    }
    return where;
}

// "(k0, k2)": the first position of every label, so the key follows distinct(labels).
std::string first_positions(const std::string& labels) {
    std::string key;
    for (std::size_t q = 0; q < labels.size(); ++q)
        if (labels.find(labels[q]) == q) key += (key.empty() ? "(k" : ", k") + std::to_string(q);
    return key + ")";
}

}  // namespace

EinsumStep lower_diagonals(ProgramBuilder& builder, const std::string& name, const EinsumStep& step,
                           const StepSource& src) {
    const std::optional<EinsumSpec> parsed = operand_spec(step);
    if (!parsed) return step;   // the lowering reports it, located at `einsum`
    EinsumSpec spec = *parsed;  // its operands lose their repeated labels below
    // Every operand is checked before any step is added, so a refused einsum adds nothing.
    std::vector<std::size_t> repeating;
    for (std::size_t i = 0; i < spec.operands.size(); ++i) {
        const std::string& labels = spec.operands[i];
        if (distinct(labels) == labels) continue;
        check_operand(builder.node(builder.lookup(step.inputs[i], src.at("inputs"))), labels,
                      src.at("inputs"));
        repeating.push_back(i);
    }
    if (repeating.empty()) return step;
    EinsumStep out = step;
    for (std::size_t i : repeating) {
        const std::string labels = spec.operands[i];
        const std::string diag = name + ".diag" + std::to_string(i + 1);
        kernels::KernelParams params;
        params.spec = labels + "->" + distinct(labels);
        const NodeId keep =
            builder.add_filter(diag + ".keep", step.inputs[i], on_key_diagonal(labels), src);
        const NodeId tiles = builder.add_transform(diag + ".tiles", diag + ".keep",
                                                   kernels::KernelCall("diagonal", params), src);
        const NodeId rekeyed =
            builder.add_rekey(diag, diag + ".tiles", first_positions(labels), src);
        for (NodeId id : {keep, tiles, rekeyed}) builder.set_lowered_from(id, name);
        out.inputs[i] = diag;
        spec.operands[i] = distinct(labels);
    }
    // Explicit output: the implicit one counts labels, and the diagonals removed some.
    out.spec = spec.str();
    return out;
}

}  // namespace tra
