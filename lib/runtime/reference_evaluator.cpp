#include "runtime/reference_evaluator.hpp"

#include <type_traits>
#include <vector>

#include "kernels/tile_copy.hpp"
#include "runtime/input_loader.hpp"

namespace tra::runtime {

namespace {

Key project(const Key& k, const KeyPositions& positions) {
    Key out;
    for (auto p : positions) out.push_back(k[p]);
    return out;
}

void insert_unique(TensorRelation& r, Key k, Tile t, const Node& node) {
    if (!r.tuples.emplace(std::move(k), std::move(t)).second)
        throw Error("step " + node.name + " produced a duplicate key", node.where,
                    ErrorKind::Failed);
}

}  // namespace

const TensorRelation& ReferenceEvaluator::evaluate(NodeId id) {
    auto it = results_.find(id);
    if (it != results_.end()) return it->second;
    const Node& node = program_.node(id);
    for (NodeId in : node.inputs) evaluate(in);
    TensorRelation r = compute(node);
    return results_.emplace(id, std::move(r)).first->second;
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
                const InputTiles input(node);
                for (const Key& k : node.keys) out.tuples.emplace(k, input.tile(k));
            } else if constexpr (std::is_same_v<T, JoinOp>) {
                // Every pair of tuples whose join positions agree.
                const auto &L = operand(0), &R = operand(1);
                std::vector<bool> joined(R.type.key_arity, false);
                for (auto p : op.right_keys) joined[p] = true;
                for (const auto& [lk, lt] : L.tuples)
                    for (const auto& [rk, rt] : R.tuples) {
                        if (project(lk, op.left_keys) != project(rk, op.right_keys)) continue;
                        Key k = lk;
                        for (std::size_t i = 0; i < rk.size(); ++i)
                            if (!joined[i]) k.push_back(rk[i]);
                        const Tile* args[] = {&lt, &rt};
                        insert_unique(out, k, op.kernel.apply(args, {k, node.frontier}), node);
                    }
            } else if constexpr (std::is_same_v<T, AggregateOp>) {
                // Folds each group in key order, so the result never depends on arrival order.
                for (const auto& [k, t] : operand(0).tuples) {
                    Key g = project(k, op.by);
                    auto it = out.tuples.find(g);
                    if (it == out.tuples.end()) {
                        out.tuples.emplace(g, t);
                    } else {
                        const Tile* args[] = {&it->second, &t};
                        it->second = op.kernel.apply(args, {g, node.frontier});
                    }
                }
            } else if constexpr (std::is_same_v<T, RekeyOp>) {
                for (const auto& [k, t] : operand(0).tuples) insert_unique(out, op.key.apply(k), t, node);
            } else if constexpr (std::is_same_v<T, FilterOp>) {
                for (const auto& [k, t] : operand(0).tuples)
                    if (op.where.test(k)) out.tuples.emplace(k, t);
            } else if constexpr (std::is_same_v<T, TransformOp>) {
                const TensorRelation& in = operand(0);
                const Frontier f = in.keys().frontier(in.type.key_arity);
                for (const auto& [k, t] : in.tuples) {
                    const Tile* args[] = {&t};
                    out.tuples.emplace(k, op.kernel.apply(args, {k, f}));
                }
            } else if constexpr (std::is_same_v<T, TileOp>) {
                for (const auto& [k, t] : operand(0).tuples)
                    for (std::int64_t piece = 0; piece < t.shape()[op.dim] / op.size; ++piece) {
                        Key pk = k;
                        pk.push_back(piece);
                        out.tuples.emplace(pk, kernels::split_tile(t, op.dim, op.size, piece));
                    }
            } else {
                // Groups on all positions but key_dim; std::map keeps each group in key_dim order.
                std::map<Key, std::map<std::int64_t, const Tile*>> groups;
                for (const auto& [k, t] : operand(0).tuples) {
                    Key g;
                    for (std::size_t i = 0; i < k.size(); ++i)
                        if (i != op.key_dim) g.push_back(k[i]);
                    groups[g][k[op.key_dim]] = &t;
                }
                for (const auto& [g, pieces] : groups) {
                    std::vector<const Tile*> ordered;
                    for (const auto& [index, t] : pieces) ordered.push_back(t);
                    out.tuples.emplace(g, kernels::concat_tiles(ordered, op.array_dim));
                }
            }
        },
        node.op);
    return out;
}

}  // namespace tra::runtime
