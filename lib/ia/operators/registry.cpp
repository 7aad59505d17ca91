// The registry of IA operators: one entry per line of operators.def, in its order, each from the
// spec function its operator's file defines.
#include <vector>

#include "core/error.hpp"
#include "ia/operator_spec.hpp"

namespace tra::ia {

#define TRA_IA_OPERATOR(enumerator, spec) OperatorSpec spec();
#include "ia/operators/operators.def"
#undef TRA_IA_OPERATOR

const std::vector<OperatorSpec>& operator_specs() {
    static const std::vector<OperatorSpec> specs = [] {
        std::vector<OperatorSpec> all;
#define TRA_IA_OPERATOR(enumerator, spec) \
    all.push_back(spec());                \
    all.back().op = IaOp::enumerator;
#include "ia/operators/operators.def"
#undef TRA_IA_OPERATOR
        return all;
    }();
    return specs;
}

const OperatorSpec& operator_spec(IaOp op) {
    // operators.def lists the enumerators in order, so an enumerator's value is its index.
    return operator_specs().at(static_cast<std::size_t>(op));
}

const OperatorSpec& computing_operator(const Operator& op) {
    for (const OperatorSpec& spec : operator_specs())
        if (spec.computes && spec.computes(op)) return spec;
    throw Error("no IA operator computes a TRA " + operator_name(op), {}, ErrorKind::Failed);
}

}  // namespace tra::ia
