#include "tra/sparse_rules.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace tra::sparse {

namespace {

std::string absent_text(const Node& n) {
    return n.name + " is block-sparse (" + std::to_string(n.absent_tuples()) + " of " +
           std::to_string(n.frontier.product()) + " tiles are absent zeros)";
}

const std::string kNoFill =
    "; tra does not make tiles of zeros for absent tiles yet: use an operation that keeps them "
    "absent, or make the input dense (drop `sparse:` or `density:`)";

}  // namespace

bool has_absent(const Node& n) {
    return n.sparse && n.absent_tuples() > 0;
}

std::optional<Error> join_problem(const Node& left, const Node& right,
                                  const kernels::KernelCall& kernel, const SourceLocation& where) {
    if (kernel.properties().zero_annihilates) return std::nullopt;  // meets present pairs only
    for (const Node* n : {&left, &right})
        if (has_absent(*n))
            return Error(absent_text(*n) + ", and kernel '" + kernel.name() +
                             "' does not give zeros for a tile of zeros as one operand, so the "
                             "absent tiles would take part" +
                             kNoFill,
                         where);
    return std::nullopt;
}

std::optional<Error> aggregate_problem(const Node& input, const KeyPositions& by,
                                       const kernels::KernelCall& kernel,
                                       const SourceLocation& where) {
    if (!has_absent(input)) return std::nullopt;
    const auto& props = kernel.properties();
    if (props.identity == 0.0) return std::nullopt;  // absent members add nothing
    // Otherwise (max, min) zeros take part in a group with some absent members; a group with
    // none present is absent only where the kernel keeps zeros zeros.
    std::int64_t group_size = 1;
    for (std::size_t p = 0; p < input.type.key_arity; ++p)
        if (std::find(by.begin(), by.end(), p) == by.end()) group_size *= input.frontier[p];
    std::map<Key, std::int64_t> members;
    for (const Key& k : input.keys) {
        Key g;
        for (auto p : by) g.push_back(k[p]);
        ++members[g];
    }
    for (const auto& [g, count] : members)
        if (count < group_size)
            return Error(absent_text(input) + ", and group " + g.str() + " has " +
                             std::to_string(group_size - count) +
                             " absent tiles, which take part in kernel '" + kernel.name() +
                             "' as zeros" + kNoFill,
                         where);
    std::int64_t groups = 1;
    for (auto p : by) groups *= input.frontier[p];
    if (!props.zero_preserving && static_cast<std::int64_t>(members.size()) < groups)
        return Error(absent_text(input) + ", and kernel '" + kernel.name() +
                         "' does not give zeros for a group of zeros" + kNoFill,
                     where);
    return std::nullopt;
}

std::optional<Error> transform_problem(const Node& input, const kernels::KernelCall& kernel,
                                       const SourceLocation& where) {
    if (!has_absent(input) || kernel.properties().zero_preserving) return std::nullopt;
    return Error(absent_text(input) + ", and kernel '" + kernel.name() +
                     "' does not map a tile of zeros to zeros" + kNoFill,
                 where);
}

std::optional<Error> key_step_problem(const Node& input, const std::string& step,
                                      const SourceLocation& where) {
    if (!has_absent(input)) return std::nullopt;
    return Error(absent_text(input) + ", and a " + step +
                     " reads key values, which would pick among tiles of zeros it does not "
                     "hold" +
                     kNoFill,
                 where);
}

void finish(Node& n, const Frontier& dense) {
    n.sparse = true;
    if (static_cast<std::int64_t>(n.keys.size()) == dense.product()) n.keys = KeySet::box(dense);
    n.frontier = dense;
}

}  // namespace tra::sparse
