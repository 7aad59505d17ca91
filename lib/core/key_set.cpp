#include "core/key_set.hpp"

#include <algorithm>

#include "core/checked_math.hpp"
#include "core/error.hpp"

namespace tra {

KeySet::const_iterator& KeySet::const_iterator::operator++() {
    if (!box_)
        ++it_;
    else if (!next_in_box(key_, *box_))
        done_ = true;
    return *this;
}

bool operator==(const KeySet::const_iterator& a, const KeySet::const_iterator& b) {
    if (a.box_ != b.box_) return false;
    if (!a.box_) return a.it_ == b.it_;
    return a.done_ == b.done_ && (a.done_ || a.key_ == b.key_);
}

KeySet KeySet::box(const Frontier& frontier) {
    KeySet set;
    std::int64_t count = 1;
    for (std::int64_t extent : frontier) {
        if (extent <= 0) return set;  // an empty box: held as an empty explicit set
        const auto product = checked_mul(count, extent);
        if (!product)
            throw Error("the box below " + frontier.str() +
                        " holds 2^63 keys or more, more than a 64-bit count");
        count = *product;
    }
    set.is_box_ = true;
    set.box_frontier_ = frontier;
    set.box_size_ = static_cast<std::size_t>(count);
    return set;
}

bool KeySet::contains(const Key& k) const {
    if (!is_box_) return keys_.count(k) != 0;
    if (k.size() != box_frontier_.size()) return false;
    for (std::size_t i = 0; i < k.size(); ++i)
        if (k[i] < 0 || k[i] >= box_frontier_[i]) return false;
    return true;
}

bool KeySet::insert(const Key& k) {
    if (is_box_) {
        if (contains(k)) return false;
        make_explicit();
    }
    return keys_.insert(k).second;
}

void KeySet::make_explicit() {
    std::set<Key> keys;
    for (const Key& k : *this) keys.insert(keys.end(), k);
    keys_ = std::move(keys);
    is_box_ = false;
    box_frontier_ = {};
    box_size_ = 0;
}

KeySet::const_iterator KeySet::begin() const {
    const_iterator it;
    if (is_box_) {
        it.box_ = &box_frontier_;
        it.key_ = Key(box_frontier_.size());
    } else {
        it.it_ = keys_.begin();
    }
    return it;
}

KeySet::const_iterator KeySet::end() const {
    const_iterator it;
    if (is_box_) {
        it.box_ = &box_frontier_;
        it.done_ = true;
    } else {
        it.it_ = keys_.end();
    }
    return it;
}

Frontier KeySet::frontier(std::size_t key_arity) const {
    if (is_box_) return box_frontier_;
    Frontier f(key_arity, 0);
    for (const Key& k : keys_)
        for (std::size_t i = 0; i < key_arity; ++i) f[i] = std::max(f[i], k[i] + 1);
    return f;
}

bool KeySet::is_box(std::size_t key_arity) const {
    if (is_box_) return true;
    if (keys_.empty()) return false;
    // Explicit keys are enumerated, so their box's count fits: no key set this large exists.
    const Frontier f = frontier(key_arity);
    std::int64_t count = 1;
    for (std::int64_t extent : f) {
        const auto product = checked_mul(count, extent);
        if (!product) return false;
        count = *product;
    }
    return static_cast<std::size_t>(count) == keys_.size();
}

void KeySet::compact(std::size_t key_arity) {
    if (!is_box_ && is_box(key_arity)) *this = box(frontier(key_arity));
}

bool operator==(const KeySet& a, const KeySet& b) {
    if (a.is_box_ && b.is_box_) return a.box_frontier_ == b.box_frontier_;
    if (!a.is_box_ && !b.is_box_) return a.keys_ == b.keys_;
    // A box and explicit keys: equal when the keys fill the box exactly. Only the explicit side
    // is walked, so comparing with a huge box costs no more than the explicit keys.
    const KeySet& boxed = a.is_box_ ? a : b;
    const KeySet& listed = a.is_box_ ? b : a;
    if (boxed.size() != listed.size()) return false;
    return std::all_of(listed.keys_.begin(), listed.keys_.end(),
                       [&](const Key& k) { return boxed.contains(k); });
}

}  // namespace tra
