#include "ia/site_map.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace tra::ia {

SiteMap::SiteMap(std::initializer_list<std::pair<Key, std::vector<Site>>> tuples) {
    std::vector<std::pair<Key, std::vector<Site>>> sorted(tuples);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<Site> held;
    for (std::size_t i = 0; i < sorted.size();) {
        held.clear();
        std::size_t j = i;
        for (; j < sorted.size() && sorted[j].first == sorted[i].first; ++j)
            held.insert(held.end(), sorted[j].second.begin(), sorted[j].second.end());
        append(sorted[i].first, held);
        i = j;
    }
}

namespace {

// Sorts (key, site) pairs as std::sort would. Keys of one arity with non-negative values are
// packed with the site into one integer each, most significant position first, when the
// widths fit 64 bits, and the integers are sorted: comparing keys position by position was
// most of the cost of tracing partial aggregates at 1024 sites.
void sort_pairs(std::vector<std::pair<Key, Site>>& pairs) {
    if (pairs.empty()) return;
    const std::size_t arity = pairs.front().first.size();
    std::vector<std::uint64_t> most(arity + 1, 0);  // per position, then the site
    for (const auto& [key, site] : pairs) {
        if (key.size() != arity || site < 0) return std::sort(pairs.begin(), pairs.end());
        for (std::size_t i = 0; i < arity; ++i) {
            if (key[i] < 0) return std::sort(pairs.begin(), pairs.end());
            most[i] = std::max(most[i], static_cast<std::uint64_t>(key[i]));
        }
        most[arity] = std::max(most[arity], static_cast<std::uint64_t>(site));
    }
    std::vector<int> width(arity + 1);
    int total = 0;
    for (std::size_t i = 0; i <= arity; ++i) total += width[i] = std::bit_width(most[i]);
    if (total > 64) return std::sort(pairs.begin(), pairs.end());

    std::vector<std::pair<std::uint64_t, std::size_t>> order(pairs.size());
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        std::uint64_t code = 0;
        const auto push = [&](int w, std::uint64_t v) { code = w ? (code << w) | v : code; };
        for (std::size_t i = 0; i < arity; ++i)
            push(width[i], static_cast<std::uint64_t>(pairs[k].first[i]));
        push(width[arity], static_cast<std::uint64_t>(pairs[k].second));
        order[k] = {code, k};
    }
    std::sort(order.begin(), order.end());
    std::vector<std::pair<Key, Site>> sorted;
    sorted.reserve(pairs.size());
    for (const auto& [code, k] : order) sorted.push_back(std::move(pairs[k]));
    pairs = std::move(sorted);
}

}  // namespace

SiteMap SiteMap::from_pairs(std::vector<std::pair<Key, Site>> pairs) {
    sort_pairs(pairs);
    SiteMap map;
    std::vector<Site> held;
    for (std::size_t i = 0; i < pairs.size();) {
        held.clear();
        std::size_t j = i;
        for (; j < pairs.size() && pairs[j].first == pairs[i].first; ++j)
            held.push_back(pairs[j].second);
        map.append(pairs[i].first, held);
        i = j;
    }
    return map;
}

void SiteMap::check_follows(const Key& key) const {
    if (!keys_.empty() && !(keys_.back() < key))
        throw Error("site map: key " + key.str() + " does not follow " + keys_.back().str(), {},
                    ErrorKind::Failed);
}

void SiteMap::append(const Key& key, std::span<const Site> sites) {
    check_follows(key);
    const std::size_t first = sites_.size();
    sites_.insert(sites_.end(), sites.begin(), sites.end());
    const auto begin = sites_.begin() + static_cast<std::ptrdiff_t>(first);
    // A placement's sites come ascending and distinct: then there is nothing to do.
    if (!std::is_sorted(begin, sites_.end()) ||
        std::adjacent_find(begin, sites_.end()) != sites_.end()) {
        std::sort(begin, sites_.end());
        sites_.erase(std::unique(begin, sites_.end()), sites_.end());
    }
    const Range added{first, sites_.size() - first};
    // Held where the tuple before it is: share that list.
    if (!ranges_.empty() && ranges_.back().count == added.count &&
        std::equal(begin, sites_.end(),
                   sites_.begin() + static_cast<std::ptrdiff_t>(ranges_.back().first))) {
        sites_.resize(first);
        ranges_.push_back(ranges_.back());
    } else {
        ranges_.push_back(added);
    }
    keys_.push_back(key);
}

void SiteMap::append(const Key& key) {
    if (ranges_.empty())
        throw Error("site map: tuple " + key.str() + " has no tuple before it to share sites with",
                    {}, ErrorKind::Failed);
    check_follows(key);
    ranges_.push_back(ranges_.back());
    keys_.push_back(key);
}

bool operator==(const SiteMap& a, const SiteMap& b) {
    if (a.keys_ != b.keys_) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::span<const Site> x = a.sites_of(i), y = b.sites_of(i);
        if (!std::equal(x.begin(), x.end(), y.begin(), y.end())) return false;
    }
    return true;
}

SiteMap::const_iterator SiteMap::find(const Key& key) const {
    const auto it = std::lower_bound(keys_.begin(), keys_.end(), key);
    if (it == keys_.end() || *it != key) return end();
    return {this, static_cast<std::size_t>(it - keys_.begin())};
}

std::span<const Site> SiteMap::at(const Key& key) const {
    const const_iterator it = find(key);
    if (it == end())
        throw Error("no site holds the tuple with key " + key.str(), {}, ErrorKind::Failed);
    return sites_of(it.index());
}

}  // namespace tra::ia
