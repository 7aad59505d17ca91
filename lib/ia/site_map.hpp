#pragma once
// Where each tuple of a relation is held: its keys in ascending order and, per key, the sites
// holding it (ascending, distinct). The planner makes one for every placement it costs (at 1024
// sites, tens of thousands of keys each, hundreds of thousands of maps per plan search), so it is
// flat: arrays filled in key order, rather than a tree of per-key vectors. Consecutive tuples
// held on the same sites share one list (their `sites` views are the same memory): a relation on
// All is one list of S sites, not one per tuple, and readers may count such runs at once.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <span>
#include <utility>
#include <vector>

#include "core/index_vector.hpp"

namespace tra::ia {

using Site = int;  // as placement.hpp says (the compiler checks the two agree)

class SiteMap {
  public:
    // One tuple: its key and the sites holding it.
    struct Entry {
        const Key& key;
        std::span<const Site> sites;
    };

    class const_iterator {
      public:
        // Entries are made on the fly (a key and a view of its sites): an input iterator.
        using iterator_category = std::input_iterator_tag;
        using value_type = Entry;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = Entry;

        const_iterator() = default;
        Entry operator*() const { return map_->entry(i_); }
        const_iterator& operator++() {
            ++i_;
            return *this;
        }
        const_iterator operator++(int) {
            const_iterator old = *this;
            ++i_;
            return old;
        }
        std::size_t index() const { return i_; }
        friend bool operator==(const const_iterator& a, const const_iterator& b) {
            return a.i_ == b.i_;
        }

      private:
        friend class SiteMap;
        const_iterator(const SiteMap* map, std::size_t i) : map_(map), i_(i) {}
        const SiteMap* map_ = nullptr;
        std::size_t i_ = 0;
    };

    SiteMap() = default;
    // Tuples in any order, sites in any order, repeats allowed (tests write maps this way).
    SiteMap(std::initializer_list<std::pair<Key, std::vector<Site>>> tuples);
    // From (key, site) pairs in any order, repeats allowed: one entry per distinct key.
    static SiteMap from_pairs(std::vector<std::pair<Key, Site>> pairs);

    void reserve(std::size_t tuples) {
        keys_.reserve(tuples);
        ranges_.reserve(tuples);
    }
    // Adds the next tuple: `key` must be above every key so far (throws tra::Error otherwise).
    // Its sites are sorted and made distinct here.
    void append(const Key& key, std::span<const Site> sites);
    // Adds the next tuple, held where the last one is (throws tra::Error when there is none).
    void append(const Key& key);

    std::size_t size() const { return keys_.size(); }
    // The memory it holds, for caches that bound theirs.
    std::size_t memory_bytes() const {
        return sizeof(SiteMap) + keys_.capacity() * sizeof(Key) +
               ranges_.capacity() * sizeof(Range) + sites_.capacity() * sizeof(Site);
    }
    bool empty() const { return keys_.empty(); }
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, keys_.size()}; }
    Entry entry(std::size_t i) const { return {keys_[i], sites_of(i)}; }

    // The tuple with this key, or end().
    const_iterator find(const Key& key) const;
    // The sites holding the tuple with this key; throws tra::Error (Failed) when there is none.
    std::span<const Site> at(const Key& key) const;

    // Same keys, each on the same sites.
    friend bool operator==(const SiteMap& a, const SiteMap& b);

  private:
    struct Range {
        std::size_t first = 0, count = 0;  // sites_[first, first + count)
    };
    std::span<const Site> sites_of(std::size_t i) const {
        return {sites_.data() + ranges_[i].first, ranges_[i].count};
    }
    void check_follows(const Key& key) const;

    std::vector<Key> keys_;
    std::vector<Range> ranges_;  // the sites of keys_[i]
    std::vector<Site> sites_;
};

}  // namespace tra::ia
