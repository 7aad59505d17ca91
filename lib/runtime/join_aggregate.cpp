#include "runtime/join_aggregate.hpp"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

namespace tra::runtime {

namespace {

// The operands of one product of the join.
struct Operands {
    const Tile* left;
    const Tile* right;
};

}  // namespace

Tuples join_aggregate_tuples(const Node& join_node, const JoinOp& join, const Node& aggregate_node,
                             const AggregateOp& aggregate, const Tuples& left, const Tuples& right,
                             std::size_t right_arity) {
    std::vector<bool> joined(right_arity, false);
    for (auto p : join.right_keys) joined[p] = true;
    std::map<Key, std::vector<const std::pair<const Key, Tile>*>> by_join;
    for (const auto& entry : right)
        by_join[project(entry.first, join.right_keys)].push_back(&entry);
    // group -> the join's output key -> its operands: each group's products in key order, the
    // order aggregate_tuples folds them in.
    std::map<Key, std::map<Key, Operands>> groups;
    for (const auto& [lk, lt] : left) {
        auto match = by_join.find(project(lk, join.left_keys));
        if (match == by_join.end()) continue;
        for (const auto* r : match->second) {
            Key k = lk;
            for (std::size_t i = 0; i < r->first.size(); ++i)
                if (!joined[i]) k.push_back(r->first[i]);
            Key g = project(k, aggregate.by);
            if (!groups[std::move(g)].emplace(std::move(k), Operands{&lt, &r->second}).second)
                throw Error("step " + join_node.name + " produced a duplicate key", join_node.where,
                            ErrorKind::Failed);
        }
    }
    Tuples out;
    for (const auto& [g, products] : groups) {
        auto it = products.begin();
        const Tile* first[] = {it->second.left, it->second.right};
        Tile acc = join.kernel.apply(first, {it->first, join_node.frontier});
        for (++it; it != products.end(); ++it) {
            const Tile* args[] = {it->second.left, it->second.right};
            if (join.kernel.accumulate(acc, args)) continue;
            const Tile product = join.kernel.apply(args, {it->first, join_node.frontier});
            const Tile* sum[] = {&acc, &product};
            acc = aggregate.kernel.apply(sum, {g, aggregate_node.frontier});
        }
        out.emplace(g, std::move(acc));
    }
    return out;
}

}  // namespace tra::runtime
