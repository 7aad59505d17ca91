#include "tra/sparse_rules.hpp"

#include <algorithm>
#include <set>

namespace tra::sparse {

namespace {

// The keys of `input`'s box whose projection on `positions` is one of `wanted`.
KeySet box_keys_matching(const Node& input, const KeyPositions& positions,
                         const std::set<Key>& wanted) {
    KeySet out;
    for (const Key& k : KeySet::box(input.frontier))
        if (wanted.count(project(k, positions))) out.insert(k);
    return out;
}

// The positions of `input`'s key that are not in `by`.
KeyPositions other_positions(const Node& input, const KeyPositions& by) {
    KeyPositions rest;
    for (std::size_t p = 0; p < input.type.key_arity; ++p)
        if (std::find(by.begin(), by.end(), p) == by.end()) rest.push_back(p);
    return rest;
}

// `target` when it holds more than `input`, else nullopt: nothing to fill.
std::optional<KeySet> more_than(const Node& input, KeySet target) {
    if (target.size() == input.keys.size()) return std::nullopt;
    return target;
}

}  // namespace

bool has_absent(const Node& n) {
    return n.sparse && n.absent_tuples() > 0;
}

std::optional<KeySet> join_fill(const Node& side, const KeyPositions& side_keys, const Node& other,
                                const KeyPositions& other_keys, const kernels::KernelCall& kernel) {
    const auto& props = kernel.properties();
    if (!has_absent(side) || props.zero_annihilates) return std::nullopt;
    if (!props.zero_preserving) return more_than(side, KeySet::box(side.frontier));
    // join(0, 0) = 0: an absent side tile matters only where the other's tile is present.
    std::set<Key> met;
    for (const Key& k : other.keys) met.insert(project(k, other_keys));
    KeySet target = box_keys_matching(side, side_keys, met);
    for (const Key& k : side.keys) target.insert(k);
    return more_than(side, std::move(target));
}

std::optional<KeySet> aggregate_fill(const Node& input, const KeyPositions& by,
                                     const kernels::KernelCall& kernel) {
    const auto& props = kernel.properties();
    if (!has_absent(input) || props.identity == 0.0) return std::nullopt;  // absent add nothing
    if (!props.zero_preserving) return more_than(input, KeySet::box(input.frontier));
    std::set<Key> groups;  // with a present member: the absent members' zeros take part
    for (const Key& k : input.keys) groups.insert(project(k, by));
    return more_than(input, box_keys_matching(input, by, groups));
}

std::optional<KeySet> transform_fill(const Node& input, const kernels::KernelCall& kernel) {
    if (!has_absent(input) || kernel.properties().zero_preserving) return std::nullopt;
    return more_than(input, KeySet::box(input.frontier));
}

std::optional<KeySet> key_step_fill(const Node& input) {
    if (!has_absent(input)) return std::nullopt;
    return more_than(input, KeySet::box(input.frontier));
}

std::optional<KeySet> concat_fill(const Node& input, std::size_t key_dim) {
    if (!has_absent(input)) return std::nullopt;
    const KeyPositions rest = other_positions(input, {key_dim});
    std::set<Key> groups;
    for (const Key& k : input.keys) groups.insert(project(k, rest));
    return more_than(input, box_keys_matching(input, rest, groups));
}

void finish(Node& n, const Frontier& dense) {
    n.sparse = true;
    n.frontier = dense;
    if (static_cast<std::int64_t>(n.keys.size()) == dense.product()) {
        n.keys = KeySet::box(dense);
    } else if (n.keys.held_as_box()) {
        // Keys that fill a smaller box (finish_node compacts them) are held one by one: steps
        // read a box as every key below the frontier, which here is the dense one.
        KeySet keys;
        for (const Key& k : n.keys) keys.insert(k);
        n.keys = std::move(keys);
    }
}

}  // namespace tra::sparse
