// The ProgramBuilder's fills: before a step that needs absent tiles of a sparse-derived relation
// as zeros, a FillOp node makes exactly those tiles (tra/sparse_rules.hpp decides which).
#include "tra/program_builder.hpp"
#include "tra/sparse_rules.hpp"
#include "tra/tuple_limit.hpp"

namespace tra {

Checked<NodeId> ProgramBuilder::filled(
    NodeId input, const std::string& step, const std::string& suffix,
    const std::function<std::optional<KeySet>(const Node&)>& target, const SourceLocation& where) {
    const Node& I = node(input);
    if (!sparse::has_absent(I)) return input;
    // The targets are enumerated from the operand's box.
    if (auto p = too_many_tuples(I.name + " filled with zeros for " + step,
                                 tuples_in_box(I.frontier), max_tuples_, where))
        return *p;
    std::optional<KeySet> keys = target(I);
    if (!keys) return input;
    Node n{step + suffix, FillOp{}, {input}, I.type, std::move(*keys), {}, where, "", false};
    sparse::finish(n, I.frontier);
    return append(std::move(n));
}

}  // namespace tra
