// The ProgramBuilder's layout steps: `tile` (re-cut a relation's tiles) and `concat` (merge a key
// position into the tiles). The other steps are in program_builder.cpp.
#include <algorithm>
#include <map>

#include "tra/box_keys.hpp"
#include "tra/program_builder.hpp"
#include "tra/program_builder_support.hpp"
#include "tra/sparse_rules.hpp"

namespace tra {

using builder::divisors_near;
using builder::finish_node;
using builder::join_list;

Checked<NodeId> ProgramBuilder::try_add_tile(const std::string& name, const std::string& input,
                                             std::size_t dim, std::int64_t size,
                                             const StepSource& src) {
    const Checked<NodeId> in = try_lookup(input, src.at("tile"));
    if (!in) return in.problem();
    const Node& I = node(*in);
    if (dim >= I.type.rank())
        return Error("dimension " + std::to_string(dim) + " is out of range: tiles of " + input +
                         " have " + std::to_string(I.type.rank()) + " dimensions",
                     src.at("dim"));
    const std::int64_t extent = I.type.bound[dim];
    if (size <= 0 || extent % size != 0)
        return Error("size " + std::to_string(size) + " does not divide the tile extent " +
                         std::to_string(extent) + "; sizes that do: " +
                         join_list(divisors_near(extent, std::max<std::int64_t>(size, 1))),
                     src.at("size"));
    Shape bound = I.type.bound;
    bound[dim] = size;
    Node n{name,     TileOp{dim, size},
           {*in},    RelationType{I.type.key_arity + 1, bound, I.type.dtype},
           {},       {},
           src.step, "",
           false};
    if (I.keys.held_as_box()) {
        Checked<KeySet> keys =
            dense_keys(name, tiled_box(I.frontier, extent / size), n.type, src.at("size"));
        if (!keys) return keys.problem();
        n.keys = std::move(*keys);
        finish_node(n);
        if (I.sparse) sparse::finish(n, n.frontier);
        return append(std::move(n));
    }
    const std::int64_t count = tuples_times(static_cast<std::int64_t>(I.tuples()), extent / size);
    if (auto p = too_many_tuples(name, count, max_tuples_, src.at("size"))) return *p;
    for (const Key& k : I.keys)
        for (std::int64_t piece = 0; piece < extent / size; ++piece) {
            Key out = k;
            out.push_back(piece);
            n.keys.insert(out);
        }
    finish_node(n);
    // The pieces of an absent tile are absent.
    if (I.sparse) sparse::finish(n, tiled_box(I.frontier, extent / size));
    return append(std::move(n));
}

Checked<NodeId> ProgramBuilder::try_add_concat(const std::string& name, const std::string& input,
                                               std::size_t key_dim, std::size_t array_dim,
                                               const StepSource& src) {
    const Checked<NodeId> in = try_lookup(input, src.at("concat"));
    if (!in) return in.problem();
    const Node& I = node(*in);
    if (key_dim >= I.type.key_arity)
        return Error("key_dim " + std::to_string(key_dim) + " is out of range: " + input +
                         " has keys of " + std::to_string(I.type.key_arity) + " positions",
                     src.at("key_dim"));
    if (array_dim >= I.type.rank())
        return Error("array_dim " + std::to_string(array_dim) + " is out of range: tiles of " +
                         input + " have " + std::to_string(I.type.rank()) + " dimensions",
                     src.at("array_dim"));
    // A group of a sparse relation with some pieces present gets the others as zeros.
    const Checked<NodeId> filled_in = filled(
        *in, name, ".fill",
        [&](const Node& operand) { return sparse::concat_fill(operand, key_dim); },
        src.at("concat"));
    if (!filled_in) return filled_in.problem();
    const Node& F = node(*filled_in);  // (appending may move I)
    if (F.keys.held_as_box()) {        // every group of a box is complete
        Shape bound = F.type.bound;
        bound[array_dim] *= F.frontier[key_dim];
        Node n{name,         ConcatOp{key_dim, array_dim},
               {*filled_in}, RelationType{F.type.key_arity - 1, bound, F.type.dtype},
               {},           {},
               src.step,     "",
               false};
        Checked<KeySet> keys =
            dense_keys(name, concatenated_box(F.frontier, key_dim), n.type, src.at("concat"));
        if (!keys) return keys.problem();
        n.keys = std::move(*keys);
        finish_node(n);
        if (F.sparse) sparse::finish(n, n.frontier);
        return append(std::move(n));
    }
    // Every group must hold pieces 0..m-1 for one common m, or the tiles would not line up.
    std::map<Key, std::vector<std::int64_t>> groups;
    for (const Key& k : F.keys) {
        Key g;
        for (std::size_t i = 0; i < k.size(); ++i)
            if (i != key_dim) g.push_back(k[i]);
        groups[g].push_back(k[key_dim]);
    }
    // A sparse relation's group is absent (zeros) or holds all of its pieces: absent pieces
    // would be zeros inside a present tile.
    std::int64_t pieces = F.sparse ? F.frontier[key_dim]
                          : groups.empty()
                              ? 1
                              : static_cast<std::int64_t>(groups.begin()->second.size());
    for (const auto& [g, members] : groups) {
        bool complete = static_cast<std::int64_t>(members.size()) == pieces;
        for (std::size_t i = 0; complete && i < members.size(); ++i)
            complete = members[i] == static_cast<std::int64_t>(i);
        if (!complete)
            return Error("group " + g.str() + " of " + input + " does not hold pieces 0.." +
                             std::to_string(pieces - 1) + " along key position " +
                             std::to_string(key_dim) + "; concat needs complete groups",
                         src.at("concat"));
    }
    Shape bound = F.type.bound;
    bound[array_dim] *= pieces;
    Node n{name,         ConcatOp{key_dim, array_dim},
           {*filled_in}, RelationType{F.type.key_arity - 1, bound, F.type.dtype},
           {},           {},
           src.step,     "",
           false};
    for (const auto& [g, members] : groups) n.keys.insert(g);
    finish_node(n);
    if (F.sparse) sparse::finish(n, concatenated_box(F.frontier, key_dim));
    return append(std::move(n));
}

}  // namespace tra
