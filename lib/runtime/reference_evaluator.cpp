#include "runtime/reference_evaluator.hpp"

#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "runtime/local_ops.hpp"

namespace tra::runtime {

const TensorRelation& ReferenceEvaluator::evaluate(NodeId id) {
    auto it = results_.find(id);
    if (it != results_.end()) return it->second;
    const Node& node = program_.node(id);
    for (NodeId in : node.inputs) evaluate(in);
    TensorRelation r = compute(node);
    return results_.emplace(id, std::move(r)).first->second;
}

void ReferenceEvaluator::next_iteration() {
    if (!program_.repeat) throw Error("internal: next_iteration of a program without a loop");
    std::map<NodeId, TensorRelation> next;
    for (const Carry& c : program_.repeat->carry) next[c.input] = evaluate(c.step);
    for (NodeId in : program_.input_nodes())  // read once, unless read a slice at a time
        if (!next.count(in) && results_.count(in) &&
            !std::get<InputOp>(program_.node(in).op).source.slice)
            next[in] = std::move(results_.at(in));
    results_ = std::move(next);
    ++iteration_;
}

std::vector<TensorRelation> ReferenceEvaluator::evaluate_outputs(
    const std::function<void(std::size_t, const TensorRelation&)>& each) {
    const auto& outputs = program_.outputs;
    std::vector<TensorRelation> values(outputs.size());
    const std::int64_t times = program_.repeat ? program_.repeat->times : 1;
    for (;;) {
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            const std::int64_t at = outputs[i].iteration ? outputs[i].iteration : times;
            if (at != iteration_) continue;
            values[i] = evaluate(outputs[i].node);
            if (each) each(i, values[i]);
        }
        if (iteration_ >= times) return values;
        next_iteration();
    }
}

TensorRelation ReferenceEvaluator::compute(const Node& node) {
    TensorRelation out;
    out.type = node.type;
    auto operand = [&](std::size_t i) -> const TensorRelation& {
        return results_.at(node.inputs.at(i));
    };
    std::visit(
        [&](const auto& op) {
            using T = std::decay_t<decltype(op)>;
            if constexpr (std::is_same_v<T, InputOp>) {
                out.tuples = input_tuples(
                    node, [](const Key&) { return true; }, iteration_);
            } else if constexpr (std::is_same_v<T, JoinOp>) {
                out.tuples = join_tuples(node, op, operand(0).tuples, operand(1).tuples,
                                         operand(1).type.key_arity);
            } else if constexpr (std::is_same_v<T, AggregateOp>) {
                // Folds each group in key order, so the result never depends on arrival order.
                out.tuples = aggregate_tuples(node, op, operand(0).tuples);
            } else if constexpr (std::is_same_v<T, ConcatOp>) {
                out.tuples = concat_tuples(op, operand(0).tuples);
            } else {
                const TensorRelation& in = operand(0);
                // The input node's frontier: a sparse-derived relation's is the dense one.
                out.tuples =
                    map_tuples(node, node.op, in.tuples, program_.node(node.inputs.at(0)).frontier);
            }
        },
        node.op);
    return out;
}

}  // namespace tra::runtime
