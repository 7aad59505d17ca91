#include "tra/join_keys.hpp"

#include <map>
#include <vector>

#include "tra/tuple_limit.hpp"

namespace tra {

namespace {

std::vector<std::int64_t> join_values(const Key& k, const KeyPositions& positions) {
    std::vector<std::int64_t> v;
    for (auto p : positions) v.push_back(k[p]);
    return v;
}

// Calls `visit` with each key of the box below `box` whose positions `box_keys` hold `values`,
// in ascending order, without enumerating the rest of the box.
template <class Visit>
bool for_each_match(const Frontier& box, const KeyPositions& box_keys,
                    const std::vector<std::int64_t>& values, Visit&& visit) {
    Frontier free = box;
    for (std::size_t i = 0; i < box_keys.size(); ++i) {
        if (values[i] < 0 || values[i] >= box[box_keys[i]]) return true;
        free[box_keys[i]] = 1;
    }
    Key index(box.size());
    do {
        Key match = index;
        for (std::size_t i = 0; i < box_keys.size(); ++i) match[box_keys[i]] = values[i];
        if (!visit(match)) return false;
    } while (next_in_box(index, free));
    return true;
}

class JoinOutput {
  public:
    JoinOutput(const KeyPositions& right_keys, std::size_t right_arity,
               const EnumerationLimit& limit)
        : joined_(right_arity, false), limit_(limit) {
        for (auto p : right_keys) joined_[p] = true;
    }

    // Adds left ++ right (less the joined positions); false once past the limit.
    bool add(const Key& left, const Key& right) {
        Key out = left;
        for (std::size_t i = 0; i < right.size(); ++i)
            if (!joined_[i]) out.push_back(right[i]);
        keys_.insert(out);
        problem_ = too_many_tuples(limit_.relation, static_cast<std::int64_t>(keys_.size()),
                                   limit_.max_tuples, limit_.where);
        return !problem_;
    }
    Checked<KeySet> result() {
        if (problem_) return *problem_;
        return std::move(keys_);
    }

  private:
    std::vector<bool> joined_;
    const EnumerationLimit& limit_;
    KeySet keys_;
    std::optional<Error> problem_;
};

}  // namespace

Checked<KeySet> enumerated_join_keys(const KeySet& left, const KeySet& right,
                                     const KeyPositions& left_keys, const KeyPositions& right_keys,
                                     std::size_t right_arity, const EnumerationLimit& limit) {
    JoinOutput out(right_keys, right_arity, limit);
    if (right.held_as_box()) {
        for (const Key& lk : left)
            if (!for_each_match(right.box_frontier(), right_keys, join_values(lk, left_keys),
                                [&](const Key& rk) { return out.add(lk, rk); }))
                break;
        return out.result();
    }
    if (left.held_as_box()) {
        for (const Key& rk : right)
            if (!for_each_match(left.box_frontier(), left_keys, join_values(rk, right_keys),
                                [&](const Key& lk) { return out.add(lk, rk); }))
                break;
        return out.result();
    }
    // Both enumerated: hash the right side by its join-key values.
    std::map<std::vector<std::int64_t>, std::vector<const Key*>> right_by_join_key;
    for (const Key& k : right) right_by_join_key[join_values(k, right_keys)].push_back(&k);
    for (const Key& lk : left) {
        auto it = right_by_join_key.find(join_values(lk, left_keys));
        if (it == right_by_join_key.end()) continue;
        for (const Key* rk : it->second)
            if (!out.add(lk, *rk)) return out.result();
    }
    return out.result();
}

}  // namespace tra
