#pragma once
// The exact, ordered set of keys of a relation. A dense relation's keys are every key below its
// frontier, so they are held as that box alone (its frontier) and enumerated only when visited:
// checking and sizing a relation of 1e8 or 2^60 tiles costs the same as one of 4. A relation
// with holes (after a filter, a sparse rekey, ...) holds its keys explicitly.
#include <cstdint>
#include <iterator>
#include <set>

#include "core/index_vector.hpp"

namespace tra {

class KeySet {
  public:
    // Visits the keys in ascending (row-major) order: a set's iterator, or an odometer that
    // steps through the box without holding more than the current key.
    class const_iterator {
      public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = Key;
        using difference_type = std::ptrdiff_t;
        using pointer = const Key*;
        using reference = const Key&;

        const_iterator() = default;
        reference operator*() const { return box_ ? key_ : *it_; }
        pointer operator->() const { return &**this; }
        const_iterator& operator++();
        const_iterator operator++(int) {
            const_iterator old = *this;
            ++*this;
            return old;
        }
        friend bool operator==(const const_iterator& a, const const_iterator& b);

      private:
        friend class KeySet;
        const Frontier* box_ = nullptr;  // set for a box; then key_ is the current key
        Key key_;
        bool done_ = false;
        std::set<Key>::const_iterator it_;
    };
    using iterator = const_iterator;

    KeySet() = default;
    // Every key strictly below `frontier`: the key set of a plain tensor. Holds no keys; throws
    // (BadInput) when the box holds 2^63 keys or more, which no count here could say.
    static KeySet box(const Frontier& frontier);

    // Inserting a key outside a box turns it explicit: every key of the box is enumerated.
    bool insert(const Key& k);
    bool contains(const Key& k) const;
    std::size_t size() const { return is_box_ ? box_size_ : keys_.size(); }
    bool empty() const { return size() == 0; }
    const_iterator begin() const;
    const_iterator end() const;

    // FRONT(R): one above the largest value in each position (all zeros when empty).
    Frontier frontier(std::size_t key_arity) const;
    // True when the keys are exactly the box below their frontier (no holes).
    bool is_box(std::size_t key_arity) const;
    // True when held as a box (not enumerated): is_box() without looking at any key.
    bool held_as_box() const { return is_box_; }
    // The box's frontier; only when held_as_box().
    const Frontier& box_frontier() const { return box_frontier_; }
    // Holds explicit keys that happen to fill their box as that box, freeing them.
    void compact(std::size_t key_arity);

    friend bool operator==(const KeySet& a, const KeySet& b);

  private:
    void make_explicit();

    bool is_box_ = false;
    Frontier box_frontier_;  // when is_box_: every extent positive
    std::size_t box_size_ = 0;
    std::set<Key> keys_;  // when !is_box_
};

}  // namespace tra
