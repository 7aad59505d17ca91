#pragma once
// Pieces the einsum lowering tests share: where a step "was written" (with the fields errors
// name), integer-valued generated inputs, the list of steps a lowering made, whole tensors
// assembled from relations, and the naive einsum the evaluator's numbers are checked against.
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/relation.hpp"
#include "storage/generator.hpp"
#include "tra/program_builder.hpp"

namespace tra::testing {

// An einsum step at e.yaml:4:3, its `einsum` and `inputs` fields on line 5.
inline StepSource einsum_at(const std::string& step) {
    StepSource s;
    s.step = SourceLocation{"e.yaml", 4, 3, step};
    s.fields["einsum"] = SourceLocation{"e.yaml", 5, 15, step + ".einsum"};
    s.fields["inputs"] = SourceLocation{"e.yaml", 5, 40, step + ".inputs"};
    return s;
}

// Integers in [-3, 3]: sums of their products are exact in f64, so results compare with ==.
inline storage::GeneratorSpec small_integers(std::uint64_t seed, double density = 1.0) {
    storage::GeneratorSpec g;
    g.kind = storage::GeneratorSpec::Kind::Integers;
    g.lo = -3;
    g.hi = 3;
    g.seed = seed;
    g.density = density;
    return g;
}

inline InputSource small_integers_input(std::uint64_t seed, double density = 1.0) {
    InputSource s;
    s.generate = small_integers(seed, density);
    return s;
}

// "NAME:operator" for every step but the inputs, in program order.
inline std::vector<std::string> node_ops(const Program& p) {
    std::vector<std::string> ops;
    for (const Node& n : p.nodes)
        if (!std::holds_alternative<InputOp>(n.op))
            ops.push_back(n.name + ":" + operator_name(n.op));
    return ops;
}

// A relation in tensor layout assembled into one row-major vector of `shape` (zeros where
// tiles are absent).
inline std::vector<double> assemble(const TensorRelation& r, const Shape& shape) {
    const std::size_t rank = r.type.rank();
    REQUIRE(r.type.key_arity == rank);
    std::vector<double> out(static_cast<std::size_t>(shape.product()), 0.0);
    for (const auto& [key, tile] : r.tuples) {
        Shape local(rank);
        std::int64_t flat = 0;
        do {
            Shape global(rank);
            for (std::size_t d = 0; d < rank; ++d) global[d] = key[d] * r.type.bound[d] + local[d];
            out.at(static_cast<std::size_t>(row_major_offset(global, shape))) = tile.get(flat++);
        } while (rank && next_in_box(local, r.type.bound));
    }
    return out;
}

// Naive einsum over whole row-major tensors: every assignment of every label (extents from
// `extent`), the product of the operands' elements added into the output element.
inline std::vector<double> naive_einsum(const std::vector<std::string>& operand_labels,
                                        const std::vector<std::vector<double>>& values,
                                        const std::string& output,
                                        const std::map<char, std::int64_t>& extent) {
    std::string labels;
    for (auto& [c, e] : extent) labels += c;
    Shape all, out_shape;
    for (char c : labels) all.push_back(extent.at(c));
    for (char c : output) out_shape.push_back(extent.at(c));
    std::vector<double> out(static_cast<std::size_t>(out_shape.product()), 0.0);
    Shape value(labels.size());
    do {
        double v = 1;
        for (std::size_t i = 0; i < operand_labels.size(); ++i) {
            Shape idx, shape;
            for (char c : operand_labels[i]) {
                idx.push_back(value[labels.find(c)]);
                shape.push_back(extent.at(c));
            }
            v *= values[i].at(static_cast<std::size_t>(row_major_offset(idx, shape)));
        }
        Shape o;
        for (char c : output) o.push_back(value[labels.find(c)]);
        out[static_cast<std::size_t>(row_major_offset(o, out_shape))] += v;
    } while (next_in_box(value, all));
    return out;
}

}  // namespace tra::testing
