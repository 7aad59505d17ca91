#include "tra/fold_fills.hpp"

namespace tra {

std::vector<std::string> filled_operands(ProgramBuilder& builder, const TilingClasses& classes,
                                         const std::string& name, std::vector<std::string> operands,
                                         const StepSource& src) {
    for (const FoldFill& fill : classes.fills_before(name)) {
        if (fill.operand >= operands.size() || !builder.lookup_optional(operands[fill.operand]))
            continue;
        std::string& operand = operands[fill.operand];
        const std::string prefix =
            operands.size() == 1 ? name : name + ".operand" + std::to_string(fill.operand + 1);
        operand = fill_padding_steps(builder, prefix, operand,
                                     classes.dims_to_fill(operand, fill.positions, fill.value),
                                     fill.value, src);
    }
    return operands;
}

}  // namespace tra
