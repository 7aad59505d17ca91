#include "ia/replicated_join.hpp"

#include <algorithm>
#include <numeric>

namespace tra::ia {

namespace {

bool contains(const KeyPositions& list, std::size_t p) {
    return std::find(list.begin(), list.end(), p) != list.end();
}

bool repeats(const KeyPositions& list) {
    KeyPositions sorted = list;
    std::sort(sorted.begin(), sorted.end());
    return std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
}

// R's positions that are not join keys, in order: they follow L's key in the output.
KeyPositions free_positions(std::size_t arity, const KeyPositions& keys) {
    KeyPositions out;
    for (std::size_t p = 0; p < arity; ++p)
        if (!contains(keys, p)) out.push_back(p);
    return out;
}

}  // namespace

std::optional<std::string> rmm_problem(const JoinOp& op, const Node& left, const Node& right) {
    if (op.left_keys.empty()) return "the join has no join keys";
    if (repeats(op.left_keys) || repeats(op.right_keys))
        return "a key position appears twice among the join keys";
    if (free_positions(left.type.key_arity, op.left_keys).empty())
        return "'" + left.name + "' has no key position besides the join keys";
    if (free_positions(right.type.key_arity, op.right_keys).empty())
        return "'" + right.name + "' has no key position besides the join keys";
    if (left.keys.empty() || right.keys.empty()) return "an operand is empty";
    return std::nullopt;
}

Replication rmm_left_replication(const JoinOp& op, const Node& left, const Node& right) {
    Replication spec;
    for (std::size_t p = 0; p < left.type.key_arity; ++p) spec.positions.push_back({p, 1});
    for (std::size_t q : free_positions(right.type.key_arity, op.right_keys))
        spec.positions.push_back({std::nullopt, right.frontier[q]});
    return spec;
}

Replication rmm_right_replication(const JoinOp& op, const Node& left, const Node& right) {
    Replication spec;
    for (std::size_t p = 0; p < left.type.key_arity; ++p) {
        auto j = std::find(op.left_keys.begin(), op.left_keys.end(), p);
        if (j != op.left_keys.end())
            spec.positions.push_back(
                {op.right_keys[static_cast<std::size_t>(j - op.left_keys.begin())], 1});
        else
            spec.positions.push_back({std::nullopt, left.frontier[p]});
    }
    for (std::size_t q : free_positions(right.type.key_arity, op.right_keys))
        spec.positions.push_back({q, 1});
    return spec;
}

KeyPositions rmm_partition(const JoinOp& op, const Node& left, const Node& right) {
    KeyPositions dims = free_positions(left.type.key_arity, op.left_keys);
    const std::size_t extra = free_positions(right.type.key_arity, op.right_keys).size();
    for (std::size_t t = 0; t < extra; ++t) dims.push_back(left.type.key_arity + t);
    return dims;
}

JoinOp rmm_local_join(const JoinOp& op, std::size_t output_arity) {
    KeyPositions all(output_arity);
    std::iota(all.begin(), all.end(), std::size_t{0});
    return JoinOp{all, all, op.kernel};
}

std::optional<std::string> rmm_join_problem(const JoinOp& op, const Node& left, const Node& right,
                                            const ReplicatedRelation* l,
                                            const ReplicatedRelation* r, const JoinOp& applied) {
    if (auto why = rmm_problem(op, left, right)) return "a replicated join is impossible: " + *why;
    if (!l || !r)
        return std::string("a replicated join needs both operands replicated (RMM), but its ") +
               (l ? "right" : "left") + " input holds '" + (l ? right.name : left.name) +
               "' itself";
    const Replication want_l = rmm_left_replication(op, left, right);
    const Replication want_r = rmm_right_replication(op, left, right);
    if (!(l->spec == want_l))
        return "its left input holds '" + left.name + "' replicated as " + l->spec.str() +
               ", the replicated join needs " + want_l.str();
    if (!(r->spec == want_r))
        return "its right input holds '" + right.name + "' replicated as " + r->spec.str() +
               ", the replicated join needs " + want_r.str();
    const JoinOp want = rmm_local_join(op, want_l.positions.size());
    if (applied.left_keys != want.left_keys || applied.right_keys != want.right_keys)
        return "a replicated join must join on every key position";
    return std::nullopt;
}

}  // namespace tra::ia
