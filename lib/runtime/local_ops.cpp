#include "runtime/local_ops.hpp"

#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "kernels/tile_copy.hpp"
#include "runtime/input_loader.hpp"

namespace tra::runtime {

namespace {

void insert_unique(Tuples& r, Key k, Tile t, const Node& node) {
    if (!r.emplace(std::move(k), std::move(t)).second)
        throw Error("step " + node.name + " produced a duplicate key", node.where,
                    ErrorKind::Failed);
}

// A tile passed through unchanged: taken from an input the caller gave up (In not const),
// copied from one it keeps.
template <class In>
Tile passed(In& t) {
    if constexpr (std::is_const_v<In>)
        return Tile(t);
    else
        return std::move(t);
}

template <class In>  // Tuples or const Tuples
Tuples aggregated(const Node& node, const AggregateOp& op, In& in) {
    Tuples out;
    for (auto& [k, t] : in) {
        Key g = project(k, op.by);
        auto it = out.find(g);
        if (it == out.end()) {
            out.emplace(g, passed(t));
        } else {
            const Tile* args[] = {&it->second, &t};
            it->second = op.kernel.apply(args, {g, node.frontier});
        }
    }
    return out;
}

template <class In>
Tuples filled(const Node& node, In& in, const std::function<bool(const Key&)>& mine,
              Residence residence) {
    Tuples out;
    for (const Key& k : node.keys) {
        auto held = in.find(k);
        if (held != in.end())
            out.emplace(k, passed(held->second));
        else if (mine(k))
            out.emplace(k, Tile(node.type.dtype, node.type.bound, residence));
    }
    return out;
}

template <class In>
Tuples mapped(const Node& node, const Operator& op, In& in, const Frontier& input_frontier) {
    Tuples out;
    std::visit(
        [&](const auto& o) {
            using T = std::decay_t<decltype(o)>;
            if constexpr (std::is_same_v<T, RekeyOp>) {
                for (auto& [k, t] : in) insert_unique(out, o.key.apply(k), passed(t), node);
            } else if constexpr (std::is_same_v<T, FilterOp>) {
                for (auto& [k, t] : in)
                    if (o.where.test(k)) out.emplace(k, passed(t));
            } else if constexpr (std::is_same_v<T, TransformOp>) {
                for (const auto& [k, t] : in) {
                    const Tile* args[] = {&t};
                    out.emplace(k, o.kernel.apply(args, {k, input_frontier}));
                }
            } else if constexpr (std::is_same_v<T, TileOp>) {
                for (const auto& [k, t] : in)
                    for (std::int64_t piece = 0; piece < t.shape()[o.dim] / o.size; ++piece) {
                        Key pk = k;
                        pk.push_back(piece);
                        out.emplace(pk, kernels::split_tile(t, o.dim, o.size, piece));
                    }
            } else if constexpr (std::is_same_v<T, FillOp>) {
                out = filled(
                    node, in, [](const Key&) { return true; }, Residence::Host);
            } else {
                throw Error("step " + node.name + " is not a tuple-wise operator", node.where,
                            ErrorKind::Failed);
            }
        },
        op);
    return out;
}

}  // namespace

Tuples input_tuples(const Node& node, const std::function<bool(const Key&)>& mine,
                    std::int64_t iteration) {
    Tuples out;
    const InputTiles input(node, iteration);
    for (const Key& k : node.keys)
        if (mine(k)) out.emplace(k, input.tile(k));
    return out;
}

Tuples join_tuples(const Node& node, const JoinOp& op, const Tuples& left, const Tuples& right,
                   std::size_t right_arity) {
    std::vector<bool> joined(right_arity, false);
    for (auto p : op.right_keys) joined[p] = true;
    // The right tuples by their join key values, each list in right-key order.
    std::map<Key, std::vector<const std::pair<const Key, Tile>*>> by_join;
    for (const auto& entry : right) by_join[project(entry.first, op.right_keys)].push_back(&entry);
    Tuples out;
    for (const auto& [lk, lt] : left) {
        auto match = by_join.find(project(lk, op.left_keys));
        if (match == by_join.end()) continue;
        for (const auto* r : match->second) {
            const Key& rk = r->first;
            Key k = lk;
            for (std::size_t i = 0; i < rk.size(); ++i)
                if (!joined[i]) k.push_back(rk[i]);
            const Tile* args[] = {&lt, &r->second};
            insert_unique(out, k, op.kernel.apply(args, {k, node.frontier}), node);
        }
    }
    return out;
}

Tuples aggregate_tuples(const Node& node, const AggregateOp& op, const Tuples& in) {
    return aggregated(node, op, in);
}

Tuples aggregate_tuples(const Node& node, const AggregateOp& op, Tuples&& in) {
    return aggregated(node, op, in);
}

Tuples concat_tuples(const ConcatOp& op, const Tuples& in) {
    std::map<Key, std::map<std::int64_t, const Tile*>> groups;
    for (const auto& [k, t] : in) {
        Key g;
        for (std::size_t i = 0; i < k.size(); ++i)
            if (i != op.key_dim) g.push_back(k[i]);
        groups[g][k[op.key_dim]] = &t;
    }
    Tuples out;
    for (const auto& [g, pieces] : groups) {
        std::vector<const Tile*> ordered;
        for (const auto& [index, t] : pieces) ordered.push_back(t);
        out.emplace(g, kernels::concat_tiles(ordered, op.array_dim));
    }
    return out;
}

Tuples fill_tuples(const Node& node, const Tuples& in, const std::function<bool(const Key&)>& mine,
                   Residence residence) {
    return filled(node, in, mine, residence);
}

Tuples fill_tuples(const Node& node, Tuples&& in, const std::function<bool(const Key&)>& mine,
                   Residence residence) {
    return filled(node, in, mine, residence);
}

Tuples map_tuples(const Node& node, const Operator& op, const Tuples& in,
                  const Frontier& input_frontier) {
    return mapped(node, op, in, input_frontier);
}

Tuples map_tuples(const Node& node, const Operator& op, Tuples&& in,
                  const Frontier& input_frontier) {
    return mapped(node, op, in, input_frontier);
}

}  // namespace tra::runtime
