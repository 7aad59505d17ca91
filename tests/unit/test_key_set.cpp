// KeySet held as a box (its frontier alone) against the same keys held explicitly: every
// observation (order, size, frontier, membership, equality) must agree, and a key outside the
// box must turn it explicit without losing any.
#include <catch2/catch.hpp>
#include <set>
#include <vector>

#include "core/error.hpp"
#include "core/key_set.hpp"

using namespace tra;

namespace {

// Every key below `f`, listed one by one into an explicit set.
KeySet listed(const Frontier& f) {
    KeySet s;
    std::set<Key> keys;
    std::vector<std::int64_t> k(f.size(), 0);
    // Counting in mixed radix, independently of next_in_box, so the order is checked against
    // std::set's, not against itself.
    const std::int64_t count = f.product();
    for (std::int64_t n = 0; n < count; ++n) {
        std::int64_t rest = n;
        for (std::size_t i = f.size(); i-- > 0;) {
            k[i] = rest % f[i];
            rest /= f[i];
        }
        s.insert(Key(k));
    }
    return s;
}

std::vector<Key> visited(const KeySet& s) {
    return {s.begin(), s.end()};
}

}  // namespace

TEST_CASE("key set: a box visits its keys in std::set order without holding them", "[core]") {
    for (const Frontier& f : {Frontier{2, 3}, Frontier{1}, Frontier{3, 1, 2}, Frontier{}}) {
        const KeySet box = KeySet::box(f);
        const KeySet explicit_keys = listed(f);
        CHECK(box.held_as_box());
        CHECK_FALSE(explicit_keys.held_as_box());
        CHECK(visited(box) == visited(explicit_keys));
        CHECK(box.size() == explicit_keys.size());
        CHECK(box.frontier(f.size()) == explicit_keys.frontier(f.size()));
        CHECK(box.is_box(f.size()));
        CHECK(explicit_keys.is_box(f.size()));
        CHECK(box == explicit_keys);
        CHECK(explicit_keys == box);
    }
    CHECK(visited(KeySet::box(Frontier{2, 2})) ==
          std::vector<Key>{Key{0, 0}, Key{0, 1}, Key{1, 0}, Key{1, 1}});
    CHECK(KeySet::box(Frontier{}).size() == 1);
}

TEST_CASE("key set: a box of 2^62 keys is sized and checked at once", "[core]") {
    const KeySet huge = KeySet::box(Frontier{std::int64_t{1} << 31, std::int64_t{1} << 31});
    CHECK(huge.size() == std::size_t{1} << 62);
    CHECK(huge.is_box(2));
    CHECK(huge.frontier(2) == Frontier{std::int64_t{1} << 31, std::int64_t{1} << 31});
    CHECK(huge.contains(Key{(std::int64_t{1} << 31) - 1, 0}));
    CHECK_FALSE(huge.contains(Key{std::int64_t{1} << 31, 0}));
    CHECK(*huge.begin() == Key{0, 0});
    CHECK(*std::next(huge.begin(), 3) == Key{0, 3});
    CHECK(huge == KeySet::box(Frontier{std::int64_t{1} << 31, std::int64_t{1} << 31}));
    CHECK_FALSE(huge == KeySet::box(Frontier{std::int64_t{1} << 31, 2}));
    // 2^64 keys: no count says that, so the box is refused rather than wrapped.
    CHECK_THROWS_AS(KeySet::box(Frontier{std::int64_t{1} << 32, std::int64_t{1} << 32}), Error);
}

TEST_CASE("key set: membership of a box", "[core]") {
    const KeySet box = KeySet::box(Frontier{2, 3});
    CHECK(box.contains(Key{1, 2}));
    CHECK_FALSE(box.contains(Key{2, 0}));
    CHECK_FALSE(box.contains(Key{0, -1}));
    CHECK_FALSE(box.contains(Key{0}));
    CHECK_FALSE(box.contains(Key{0, 0, 0}));
}

TEST_CASE("key set: an empty box is an empty set", "[core]") {
    const KeySet empty = KeySet::box(Frontier{3, 0});
    CHECK(empty.empty());
    CHECK(empty.begin() == empty.end());
    CHECK_FALSE(empty.is_box(2));
    CHECK(empty == KeySet{});
}

TEST_CASE("key set: inserting into a box", "[core]") {
    KeySet box = KeySet::box(Frontier{2, 2});
    // A key already in the box: nothing changes.
    CHECK_FALSE(box.insert(Key{1, 1}));
    CHECK(box.held_as_box());
    // A key outside it: a hole appears below the new frontier, so the keys are listed.
    CHECK(box.insert(Key{2, 2}));
    CHECK_FALSE(box.held_as_box());
    CHECK(box.size() == 5);
    CHECK(box.frontier(2) == Frontier{3, 3});
    CHECK_FALSE(box.is_box(2));
    CHECK(visited(box) == std::vector<Key>{Key{0, 0}, Key{0, 1}, Key{1, 0}, Key{1, 1}, Key{2, 2}});
    CHECK_FALSE(box == KeySet::box(Frontier{3, 3}));
}

TEST_CASE("key set: explicit keys with holes differ from their box, compact only fills", "[core]") {
    KeySet diag;
    diag.insert(Key{0, 0});
    diag.insert(Key{1, 1});
    CHECK(diag.frontier(2) == Frontier{2, 2});
    CHECK_FALSE(diag.is_box(2));
    CHECK_FALSE(diag == KeySet::box(Frontier{2, 2}));
    diag.compact(2);
    CHECK_FALSE(diag.held_as_box());  // it has holes: stays listed
    KeySet full = listed(Frontier{2, 3});
    full.compact(2);
    CHECK(full.held_as_box());
    CHECK(full == listed(Frontier{2, 3}));
    CHECK(visited(full) == visited(listed(Frontier{2, 3})));
}
