#include "ia/transfer.hpp"

#include <algorithm>
#include <bit>
#include <functional>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace tra::ia {

namespace {

void check_sites(int sites) {
    if (sites < 1) fail("site count must be at least 1, got " + std::to_string(sites));
}

}  // namespace

std::size_t site_index(Site s, int sites) {
    if (s < 0 || s >= sites)
        fail("site " + std::to_string(s) + " is outside 0.." + std::to_string(sites - 1));
    return static_cast<std::size_t>(s);
}

SiteMap holders(const KeySet& keys, const Placement& placement, int sites) {
    SiteMap map;
    map.reserve(keys.size());
    std::vector<Site> held;
    Key last;                    // a copy: a box's iterator hands out one key it changes in place
    for (const Key& k : keys) {  // ascending, as SiteMap::append needs
        if (!map.empty() && placement.places_alike(k, last)) {
            map.append(k);  // where the last one is (All: one list for every tuple)
        } else {
            placement.sites(k, sites, held);
            map.append(k, held);
            last = k;
        }
    }
    return map;
}

Site sender_for(std::span<const Site> holders, Site receiver) {
    if (holders.empty()) fail("no site holds the tuple, so none can send it");
    // A placement's sites are ascending and distinct already (the common case): no copy.
    if (std::adjacent_find(holders.begin(), holders.end(), std::greater_equal<>()) == holders.end())
        return sender_for_sorted(holders, receiver);
    std::vector<Site> sorted(holders.begin(), holders.end());
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    return sender_for_sorted(sorted, receiver);
}

TransferTally::TransferTally(int sites, std::size_t key_arity, std::size_t tile_bytes)
    : sites_(sites),
      tile_(static_cast<std::int64_t>(tile_bytes)),
      key_bytes_(static_cast<std::int64_t>(key_arity) * kKeyValueBytes) {
    check_sites(sites);
    const auto n = static_cast<std::size_t>(sites);
    received_copies_.assign(n, 0);
    sent_copies_.assign(n, 0);
    sends_to_.resize(n);
}

void TransferTally::outside(Site sender, Site receiver) const {
    const Site bad = sender < 0 || sender >= sites_ ? sender : receiver;
    fail("site " + std::to_string(bad) + " is outside 0.." + std::to_string(sites_ - 1));
}

void TransferTally::copies_to(std::span<const Site> senders, std::span<const Site> receivers,
                              std::int64_t count) {
    if (senders.size() != 1) {  // walk the receivers against the senders, both ascending
        auto held = senders.begin();
        for (Site receiver : receivers) {
            while (held != senders.end() && *held < receiver) ++held;
            if (held != senders.end() && *held == receiver) continue;  // keeps its copy
            copy(sender_for_sorted(senders, receiver), receiver, count);
        }
        return;
    }
    // One sender (a partitioned relation's tuple): its row and count once for all receivers.
    const Site sender = senders.front();
    const auto n = static_cast<unsigned>(sites_);
    if (static_cast<unsigned>(sender) >= n) outside(sender, 0);
    std::vector<std::uint64_t>& row = sends_of(static_cast<std::size_t>(sender));
    std::int64_t sent = 0;
    for (Site receiver : receivers) {
        if (receiver == sender) continue;
        if (static_cast<unsigned>(receiver) >= n) outside(sender, receiver);
        const auto r = static_cast<std::size_t>(receiver);
        received_copies_[r] += count;
        row[r / 64] |= std::uint64_t{1} << (r % 64);
        sent += count;
    }
    sent_copies_[static_cast<std::size_t>(sender)] += sent;
}

Transfer TransferTally::finish() {
    Transfer t;
    const std::size_t n = received_copies_.size();
    std::vector<std::int64_t> received_payload(n), received_overhead(n), sent_payload(n),
        sent_overhead(n), sent_messages(n, 0), received_messages(n, 0);
    for (std::size_t site = 0; site < n; ++site) {
        t.tuples_moved += received_copies_[site];
        received_payload[site] = received_copies_[site] * tile_;
        received_overhead[site] = received_copies_[site] * key_bytes_;
        sent_payload[site] = sent_copies_[site] * tile_;
        sent_overhead[site] = sent_copies_[site] * key_bytes_;
    }
    t.payload_bytes = t.tuples_moved * tile_;
    for (std::size_t sender = 0; sender < n; ++sender)
        for (std::size_t w = 0; w < sends_to_[sender].size(); ++w)
            for (std::uint64_t bits = sends_to_[sender][w]; bits; bits &= bits - 1) {
                const std::size_t receiver =
                    w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
                t.pairs += 1;
                received_overhead[receiver] += kCountHeaderBytes;
                sent_overhead[sender] += kCountHeaderBytes;
                received_messages[receiver] += 1;
                sent_messages[sender] += 1;
            }
    for (auto b : received_overhead) t.overhead_bytes += b;
    t.received_payload = std::move(received_payload);
    t.received_overhead = std::move(received_overhead);
    t.sent_payload = std::move(sent_payload);
    t.sent_overhead = std::move(sent_overhead);
    t.sent_messages = std::move(sent_messages);
    t.received_messages = std::move(received_messages);
    return t;
}

namespace {

void check_tuple(const SiteMap::Entry& tuple, std::size_t key_arity, int sites) {
    if (tuple.key.size() != key_arity)
        fail("key " + tuple.key.str() + " has " + std::to_string(tuple.key.size()) +
             " positions, expected " + std::to_string(key_arity));
    for (Site s : tuple.sites) site_index(s, sites);
    if (tuple.sites.empty())
        fail("no site holds the tuple " + tuple.key.str() + ", so none can send it");
}

// A move to All: every site receives each tuple it lacks, from sender_for of the tuple's holders,
// so tuples with the same holders cost the same. Counted once per distinct holder list, times
// its tuples: a broadcast of 16 x S tuples costs O(S) per distinct list, not per tuple.
Transfer broadcast(const SiteMap& from, std::size_t key_arity, std::size_t tile_bytes, int sites) {
    std::vector<std::span<const Site>> lists;
    lists.reserve(from.size());
    for (const SiteMap::Entry tuple : from) {
        check_tuple(tuple, key_arity, sites);
        lists.push_back(tuple.sites);
    }
    const auto less = [](std::span<const Site> a, std::span<const Site> b) {
        if (a.data() == b.data() && a.size() == b.size()) return false;  // one shared list
        return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
    };
    std::sort(lists.begin(), lists.end(), less);
    TransferTally tally(sites, key_arity, tile_bytes);
    std::vector<Site> everyone(static_cast<std::size_t>(sites));
    for (Site s = 0; s < sites; ++s) everyone[static_cast<std::size_t>(s)] = s;
    for (std::size_t i = 0; i < lists.size();) {
        std::size_t j = i + 1;
        while (j < lists.size() && !less(lists[i], lists[j])) ++j;
        tally.copies_to(lists[i], everyone, static_cast<std::int64_t>(j - i));
        i = j;
    }
    return tally.finish();
}

}  // namespace

Transfer exact_transfer(const SiteMap& from, std::size_t key_arity, std::size_t tile_bytes,
                        const Placement& to, int sites) {
    check_sites(sites);
    if (to.kind() == Placement::Kind::Unknown)
        fail("cannot move a relation to an unknown placement");
    if (to.kind() == Placement::Kind::All) return broadcast(from, key_arity, tile_bytes, sites);
    TransferTally tally(sites, key_arity, tile_bytes);
    // Consecutive tuples held on the same sites and bound for the same sites move alike: a run
    // of them is tallied at once (a grid row's tiles from one sender, say), and the receivers
    // are computed again only for a key that `to` places elsewhere.
    std::vector<Site> receivers;  // where `to` puts *placed
    const Key* placed = nullptr;
    std::span<const Site> run_senders;
    std::int64_t run = 0;  // tuples from run_senders to `receivers` not yet tallied
    for (const SiteMap::Entry tuple : from) {
        check_tuple(tuple, key_arity, sites);
        const std::span<const Site> senders = tuple.sites;  // ascending and distinct (SiteMap)
        if (senders.size() == static_cast<std::size_t>(sites)) continue;  // on every site already
        const bool same_receivers = placed && to.places_alike(tuple.key, *placed);
        const bool same_senders =
            senders.data() == run_senders.data()
                ? senders.size() == run_senders.size()
                : senders.size() == run_senders.size() && senders.front() == run_senders.front() &&
                      std::equal(senders.begin(), senders.end(), run_senders.begin());
        if (run > 0 && !(same_receivers && same_senders)) {
            tally.copies_to(run_senders, receivers, run);
            run = 0;
        }
        if (!same_receivers) {
            to.sites(tuple.key, sites, receivers);
            placed = &tuple.key;
        }
        if (run == 0) run_senders = senders;
        ++run;
    }
    if (run > 0) tally.copies_to(run_senders, receivers, run);
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
    std::vector<Site> held;
    for (const Key& k : keys) {
        placement.sites(k, sites, held);
        for (Site s : held) bytes[site_index(s, sites)] += static_cast<std::int64_t>(tile_bytes);
    }
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
