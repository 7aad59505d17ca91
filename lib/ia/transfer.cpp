#include "ia/transfer.hpp"

#include <algorithm>
#include <bit>
#include <functional>
#include <set>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace tra::ia {

namespace {

[[noreturn]] void fail(const std::string& message) {
    throw Error(message, {}, ErrorKind::Failed);
}

void check_sites(int sites) {
    if (sites < 1) fail("site count must be at least 1, got " + std::to_string(sites));
}

std::size_t index(Site s, int sites) {
    if (s < 0 || s >= sites)
        fail("site " + std::to_string(s) + " is outside 0.." + std::to_string(sites - 1));
    return static_cast<std::size_t>(s);
}

}  // namespace

SiteMap holders(const KeySet& keys, const Placement& placement, int sites) {
    SiteMap map;
    // Keys come ascending: each goes at the end, without a search.
    for (const Key& k : keys) map.emplace_hint(map.end(), k, placement.sites(k, sites));
    return map;
}

Site sender_for(const std::vector<Site>& holders, Site receiver) {
    if (holders.empty()) fail("no site holds the tuple, so none can send it");
    // A placement's sites are ascending and distinct already (the common case): no copy.
    if (std::adjacent_find(holders.begin(), holders.end(), std::greater_equal<>()) == holders.end())
        return holders[static_cast<std::size_t>(receiver) % holders.size()];
    std::vector<Site> sorted = holders;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    return sorted[static_cast<std::size_t>(receiver) % sorted.size()];
}

TransferTally::TransferTally(int sites, std::size_t key_arity, std::size_t tile_bytes)
    : sites_(sites),
      tile_(static_cast<std::int64_t>(tile_bytes)),
      key_bytes_(static_cast<std::int64_t>(key_arity) * kKeyValueBytes) {
    check_sites(sites);
    const auto n = static_cast<std::size_t>(sites);
    t_.received_payload.assign(n, 0);
    t_.received_overhead.assign(n, 0);
    t_.sent_payload.assign(n, 0);
    t_.sent_overhead.assign(n, 0);
    t_.sent_messages.assign(n, 0);
    t_.received_messages.assign(n, 0);
    sends_to_.resize(n);
}

void TransferTally::copy(Site sender, Site receiver) {
    const std::size_t s = index(sender, sites_), r = index(receiver, sites_);
    t_.payload_bytes += tile_;
    t_.tuples_moved += 1;
    t_.received_payload[r] += tile_;
    t_.received_overhead[r] += key_bytes_;
    t_.sent_payload[s] += tile_;
    t_.sent_overhead[s] += key_bytes_;
    std::vector<std::uint64_t>& row = sends_to_[s];
    if (row.empty()) row.assign((static_cast<std::size_t>(sites_) + 63) / 64, 0);
    row[r / 64] |= std::uint64_t{1} << (r % 64);
}

Transfer TransferTally::finish() {
    for (std::size_t sender = 0; sender < sends_to_.size(); ++sender)
        for (std::size_t w = 0; w < sends_to_[sender].size(); ++w)
            for (std::uint64_t bits = sends_to_[sender][w]; bits; bits &= bits - 1) {
                const std::size_t receiver =
                    w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
                t_.pairs += 1;
                t_.received_overhead[receiver] += kCountHeaderBytes;
                t_.sent_overhead[sender] += kCountHeaderBytes;
                t_.received_messages[receiver] += 1;
                t_.sent_messages[sender] += 1;
            }
    t_.overhead_bytes = 0;
    for (auto b : t_.received_overhead) t_.overhead_bytes += b;
    return t_;
}

Transfer exact_transfer(const SiteMap& from, std::size_t key_arity, std::size_t tile_bytes,
                        const Placement& to, int sites) {
    check_sites(sites);
    if (to.kind() == Placement::Kind::Unknown)
        fail("cannot move a relation to an unknown placement");
    TransferTally tally(sites, key_arity, tile_bytes);
    std::vector<Site> senders;
    for (const auto& [key, held] : from) {
        if (key.size() != key_arity)
            fail("key " + key.str() + " has " + std::to_string(key.size()) +
                 " positions, expected " + std::to_string(key_arity));
        for (Site s : held) index(s, sites);  // validate
        // sender_for's ascending holder list, made once per tuple rather than per receiver.
        senders.assign(held.begin(), held.end());
        std::sort(senders.begin(), senders.end());
        senders.erase(std::unique(senders.begin(), senders.end()), senders.end());
        for (Site receiver : to.sites(key, sites)) {
            // A site that already holds the tuple keeps its copy: nothing travels.
            if (std::binary_search(senders.begin(), senders.end(), receiver)) continue;
            tally.copy(sender_for(senders, receiver), receiver);
        }
    }
    return tally.finish();
}

Transfer exact_transfer(const KeySet& keys, std::size_t key_arity, std::size_t tile_bytes,
                        const Placement& from, const Placement& to, int sites) {
    check_sites(sites);
    return exact_transfer(holders(keys, from, sites), key_arity, tile_bytes, to, sites);
}

std::vector<std::int64_t> resident_bytes(const KeySet& keys, std::size_t tile_bytes,
                                         const Placement& placement, int sites) {
    check_sites(sites);
    std::vector<std::int64_t> bytes(static_cast<std::size_t>(sites), 0);
    for (const Key& k : keys)
        for (Site s : placement.sites(k, sites))
            bytes[index(s, sites)] += static_cast<std::int64_t>(tile_bytes);
    return bytes;
}

double paper_floats(std::int64_t tuples, std::int64_t tile_elements) {
    return static_cast<double>(tuples) * static_cast<double>(tile_elements);
}

// Section 5.3: "The cost to broadcast a tensor relation ... having f floating point numbers,
// is simply f x s." No credit for copies a site already holds.
double paper_bcast_cost(double floats, int sites) {
    return floats * sites;
}

// "The cost to shuffle a tensor relation of f floating point numbers is simply f."
double paper_shuffle_cost(double floats) {
    return floats;
}

}  // namespace tra::ia
