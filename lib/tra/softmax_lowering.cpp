#include "tra/softmax_lowering.hpp"

#include <limits>
#include <vector>

#include "tra/padding_fill_steps.hpp"

namespace tra {

NodeId lower_softmax(ProgramBuilder& builder, const std::string& name, const std::string& input,
                     std::int64_t dim, bool log, const StepSource& src,
                     std::optional<std::int64_t> extent) {
    const std::string op = log ? "log_softmax" : "softmax";
    const Node& n = builder.node(builder.lookup(input, src.at(op)));
    // Key position d must tile dimension d, with every tile present: the einsums below read
    // the operand that way.
    if (!n.is_tensor())
        throw Error(op + " operand " + n.name +
                        " must be a plain tensor (key position d tiles dimension d, no holes), "
                        "but it is " +
                        n.type.str() + " with holes or an uneven key",
                    src.at(op));
    const auto rank = static_cast<std::int64_t>(n.type.rank());
    if (dim < 0 || dim >= rank)
        throw Error("dim " + std::to_string(dim) + " is out of range: " + n.name + " has " +
                        std::to_string(rank) + " dimension(s)" +
                        (rank > 0 ? " (dim 0 to " + std::to_string(rank - 1) + ")" : ""),
                    src.at("dim"));
    if (rank > 26)
        throw Error(op + " of " + n.name + ": " + std::to_string(rank) +
                        " dimensions, but einsum labels (a-z) name at most 26",
                    src.at(op));

    std::string labels, kept;  // L and L'
    for (std::int64_t d = 0; d < rank; ++d) {
        const char c = static_cast<char>('a' + d);
        labels += c;
        if (d != dim) kept += c;
    }
    const std::string reduce = labels + "->" + kept,
                      broadcast = labels + "," + kept + "->" + labels;
    // The einsums' operand errors, which the checks above rule out, would point at the operand.
    StepSource sub = src;
    sub.fields["inputs"] = src.at(op);
    auto einsum = [&](const std::string& out, const std::string& spec,
                      std::vector<std::string> inputs, const std::string& join,
                      const std::string& agg) {
        return builder.add_einsum(out, EinsumStep{spec, std::move(inputs), join, agg}, sub);
    };
    auto transform = [&](const std::string& out, const std::string& in,
                         const kernels::KernelCall& kernel) {
        return builder.add_transform(out, in, kernel, sub);
    };
    const std::string max = name + ".max", shift = name + ".shift", exp = name + ".exp",
                      sum = name + ".sum";
    // -inf, max's identity, past the extent (NAME.mask) where the dimension is padded.
    const std::string operand =
        extent
            ? fill_padding_steps(builder, name, input, {{static_cast<std::size_t>(dim), *extent}},
                                 -std::numeric_limits<double>::infinity(), sub)
            : input;
    const bool padded = operand != input;
    einsum(max, reduce, {operand}, "mul", "max");
    einsum(shift, broadcast, {operand, max}, "sub", "add");
    transform(exp, shift, kernels::KernelCall("exp"));
    einsum(sum, reduce, {exp}, "mul", "add");
    if (!log) return einsum(name, broadcast, {exp, sum}, "div", "add");
    // log(softmax) = shift - log(sum), not log(exp / sum): an element whose exp underflows to 0
    // still gets its finite log.
    const std::string log_sum = name + ".log";
    transform(log_sum, sum, kernels::KernelCall("log"));
    if (!padded) return einsum(name, broadcast, {shift, log_sum}, "sub", "add");
    // The shift's padding is -inf; S's is finite, and so is S - (max + log(sum)) there.
    const std::string offset = name + ".offset";
    einsum(offset, kept + "," + kept + "->" + kept, {max, log_sum}, "add", "add");
    return einsum(name, broadcast, {input, offset}, "sub", "add");
}

}  // namespace tra
