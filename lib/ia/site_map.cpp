#include "ia/site_map.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
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

// Keys of one arity with non-negative values and non-negative sites pack into one integer each,
// most significant position first, when the widths fit 64 bits: comparing keys position by
// position was most of the cost of tracing partial aggregates at 1024 sites. The widths per
// position (the site's last), or nullopt when the pairs do not pack.
std::optional<std::vector<int>> packed_widths(const std::vector<std::pair<Key, Site>>& pairs) {
    const std::size_t arity = pairs.front().first.size();
    std::vector<std::uint64_t> most(arity + 1, 0);  // per position, then the site
    for (const auto& [key, site] : pairs) {
        if (key.size() != arity || site < 0) return std::nullopt;
        for (std::size_t i = 0; i < arity; ++i) {
            if (key[i] < 0) return std::nullopt;
            most[i] = std::max(most[i], static_cast<std::uint64_t>(key[i]));
        }
        most[arity] = std::max(most[arity], static_cast<std::uint64_t>(site));
    }
    std::vector<int> width(arity + 1);
    int total = 0;
    for (std::size_t i = 0; i <= arity; ++i) total += width[i] = std::bit_width(most[i]);
    if (total > 64) return std::nullopt;
    return width;
}

// The low `w` bits of `code`, and `code` without them.
std::uint64_t low_bits(std::uint64_t code, int w) {
    return w == 0 ? 0 : w == 64 ? code : code & ((std::uint64_t{1} << w) - 1);
}
std::uint64_t high_bits(std::uint64_t code, int w) {
    return w == 64 ? 0 : code >> w;
}

}  // namespace

SiteMap SiteMap::from_pairs(std::vector<std::pair<Key, Site>> pairs) {
    SiteMap map;
    if (pairs.empty()) return map;
    std::vector<Site> held;
    const std::optional<std::vector<int>> width = packed_widths(pairs);
    if (!width) {
        std::sort(pairs.begin(), pairs.end());
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
    // Sort the codes, then read each distinct key back from its code once.
    const std::size_t arity = width->size() - 1;
    const int site_width = width->back();
    std::vector<std::uint64_t> codes;
    codes.reserve(pairs.size());
    for (const auto& [key, site] : pairs) {
        std::uint64_t code = 0;
        for (std::size_t i = 0; i < arity; ++i)
            if ((*width)[i]) code = (code << (*width)[i]) | static_cast<std::uint64_t>(key[i]);
        if (site_width) code = (code << site_width) | static_cast<std::uint64_t>(site);
        codes.push_back(code);
    }
    pairs = {};
    std::sort(codes.begin(), codes.end());
    Key key(arity);
    for (std::size_t i = 0; i < codes.size();) {
        const std::uint64_t group = high_bits(codes[i], site_width);
        held.clear();
        std::size_t j = i;
        for (; j < codes.size() && high_bits(codes[j], site_width) == group; ++j) {
            const auto site = static_cast<Site>(low_bits(codes[j], site_width));
            if (held.empty() || held.back() != site) held.push_back(site);
        }
        std::uint64_t rest = group;
        for (std::size_t p = arity; p-- > 0;) {
            key[p] = static_cast<std::int64_t>(low_bits(rest, (*width)[p]));
            rest = high_bits(rest, (*width)[p]);
        }
        map.append(key, held);
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
    // Whether `held` (ascending, distinct) are the last tuple's sites.
    const auto held_as_last = [this](std::span<const Site> held) {
        if (ranges_.empty() || ranges_.back().count != held.size()) return false;
        const std::span<const Site> last = sites_of(ranges_.size() - 1);
        return held.empty() || (last.front() == held.front() &&  // most lists differ at once
                                std::equal(held.begin(), held.end(), last.begin()));
    };
    // Held where the tuple before it is (that list is ascending and distinct): share the list.
    if (held_as_last(sites)) {
        ranges_.push_back(ranges_.back());
        keys_.push_back(key);
        return;
    }
    const std::size_t first = sites_.size();
    sites_.insert(sites_.end(), sites.begin(), sites.end());
    const auto begin = sites_.begin() + static_cast<std::ptrdiff_t>(first);
    // A placement's sites come ascending and distinct: then there is nothing to do.
    if (!std::is_sorted(begin, sites_.end()) ||
        std::adjacent_find(begin, sites_.end()) != sites_.end()) {
        std::sort(begin, sites_.end());
        sites_.erase(std::unique(begin, sites_.end()), sites_.end());
        // Sorted and made distinct, they may now be the last tuple's sites.
        if (held_as_last({sites_.data() + first, sites_.size() - first})) {
            sites_.resize(first);
            ranges_.push_back(ranges_.back());
            keys_.push_back(key);
            return;
        }
    }
    ranges_.push_back(Range{first, sites_.size() - first});
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
