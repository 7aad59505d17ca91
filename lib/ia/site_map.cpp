#include "ia/site_map.hpp"

#include <algorithm>
#include <string>

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

SiteMap SiteMap::from_pairs(std::vector<std::pair<Key, Site>> pairs) {
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    SiteMap map;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        if (i == 0 || pairs[i].first != pairs[i - 1].first) {
            if (i > 0) map.offsets_.push_back(map.sites_.size());
            map.keys_.push_back(pairs[i].first);
        }
        map.sites_.push_back(pairs[i].second);
    }
    if (!pairs.empty()) map.offsets_.push_back(map.sites_.size());
    return map;
}

void SiteMap::append(const Key& key, std::span<const Site> sites) {
    if (!keys_.empty() && !(keys_.back() < key))
        throw Error("site map: key " + key.str() + " does not follow " + keys_.back().str(), {},
                    ErrorKind::Failed);
    keys_.push_back(key);
    const auto first = static_cast<std::ptrdiff_t>(sites_.size());
    sites_.insert(sites_.end(), sites.begin(), sites.end());
    // A placement's sites come ascending and distinct: then there is nothing to do.
    if (!std::is_sorted(sites.begin(), sites.end()) ||
        std::adjacent_find(sites.begin(), sites.end()) != sites.end()) {
        std::sort(sites_.begin() + first, sites_.end());
        sites_.erase(std::unique(sites_.begin() + first, sites_.end()), sites_.end());
    }
    offsets_.push_back(sites_.size());
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
