#include "ia/partials.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/error.hpp"

namespace tra::ia {

namespace {

// The one site of `key` under a placement that must not replicate.
Site home_of(const Key& key, const Placement& to, int sites) {
    if (to.kind() != Placement::Kind::Part &&
        !(to.kind() == Placement::Kind::Grid && !to.replicated()))
        fail(
            "partials can only be reduced to one site per group (Part or an unreplicated Grid), "
            "not to " +
            to.str());
    return to.home(key, sites);
}

struct KeyHash {
    std::size_t operator()(const Key& key) const {
        std::uint64_t h = 0x9e3779b97f4a7c15ULL;
        for (std::int64_t v : key) h = (h ^ static_cast<std::uint64_t>(v)) * 0x100000001b3ULL;
        return static_cast<std::size_t>(h ^ (h >> 29));
    }
};

}  // namespace

SiteMap partial_holders(const SiteMap& input, const KeyPositions& by) {
    std::vector<std::pair<Key, Site>> pairs;  // (group, a site holding one of its tuples)
    pairs.reserve(input.size());
    Key group(by.size());
    for (const auto& [key, held] : input) {
        for (std::size_t i = 0; i < by.size(); ++i) {
            if (by[i] >= key.size())
                fail("group-by position " + std::to_string(by[i]) + " is outside key " + key.str());
            group[i] = key[by[i]];
        }
        for (Site s : held) pairs.emplace_back(group, s);
    }
    return SiteMap::from_pairs(std::move(pairs));
}

bool spans_sites(const SiteMap& partials) {
    return std::any_of(partials.begin(), partials.end(),
                       [](const SiteMap::Entry& entry) { return entry.sites.size() > 1; });
}

bool groups_span_sites(const SiteMap& input, const KeyPositions& by) {
    // group -> a site holding one of its tuples (hashed: asked for every aggregate's strategies)
    std::unordered_map<Key, Site, KeyHash> first_site;
    first_site.reserve(input.size());
    Key group(by.size());
    for (const auto& [key, held] : input) {
        for (std::size_t i = 0; i < by.size(); ++i) {
            if (by[i] >= key.size())
                fail("group-by position " + std::to_string(by[i]) + " is outside key " + key.str());
            group[i] = key[by[i]];
        }
        if (held.empty()) continue;
        const Site site = first_site.try_emplace(group, held.front()).first->second;
        for (Site s : held)
            if (s != site) return true;
    }
    return false;
}

std::int64_t partial_count(const SiteMap& partials) {
    std::int64_t n = 0;
    for (const auto& [group, sites] : partials) n += static_cast<std::int64_t>(sites.size());
    return n;
}

Transfer exact_reduce(const SiteMap& partials, std::size_t key_arity, std::size_t tile_bytes,
                      const Placement& to, int sites) {
    if (sites < 1) fail("site count must be at least 1, got " + std::to_string(sites));
    TransferTally tally(sites, key_arity, tile_bytes);
    for (const auto& [group, held] : partials) {
        if (group.size() != key_arity)
            fail("group " + group.str() + " has " + std::to_string(group.size()) +
                 " positions, expected " + std::to_string(key_arity));
        const Site home = home_of(group, to, sites);
        for (Site sender : held) {
            site_index(sender, sites);                     // validate
            if (sender != home) tally.copy(sender, home);  // the home's own partial stays
        }
    }
    return tally.finish();
}

std::vector<std::int64_t> reduced_resident(const SiteMap& partials, std::size_t tile_bytes,
                                           const Placement& to, int sites) {
    std::vector<std::int64_t> r(static_cast<std::size_t>(sites), 0);
    for (const auto& [group, held] : partials)
        r.at(site_index(home_of(group, to, sites), sites)) +=
            static_cast<std::int64_t>(held.size()) * static_cast<std::int64_t>(tile_bytes);
    return r;
}

}  // namespace tra::ia
