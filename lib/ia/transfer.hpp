#pragma once
// What moving a relation between placements costs, in the two models tra reports
// (docs/cost-model.md):
//
//   exact  (default) the tile payload received by sites that did not already hold the tuple,
//          summed over sites:  sum_{k in K} |to.sites(k) \ from.sites(k)| * tile_bytes.
//          Keys and count headers are reported apart as overhead_bytes (contract below).
//          The runtime counts what it really receives by this same definition; the two must
//          agree exactly, so this file is the contract, not an estimate.
//   paper  the TRA paper's section 5.3: a bcast of f floats costs f * S, a shuffle costs f,
//          whatever the source placement; kept so the paper's tables can be reproduced.
//
// Overhead contract (what a runtime sends besides tiles, and must count the same way):
//   * kKeyValueBytes (8) per key position of every received tuple copy (keys travel as int64);
//   * kCountHeaderBytes (8) per ordered (sender, receiver) pair, sender != receiver, that
//     exchanges at least one tuple (the int64 tuple count that precedes the tuples).
// Each received copy has one sender, chosen by sender_for(): holders[receiver mod |holders|]
// over the ascending holder list, so replicated sources spread the sending work.
//
// Unknown placements: moving from Unknown throws tra::Error (Failed), because "nobody holds it"
// would silently undercount. A planner that traced where the tuples of a remapped relation
// really are passes them as a SiteMap instead. Moving to Unknown also throws.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/relation.hpp"
#include "ia/per_site.hpp"
#include "ia/placement.hpp"
#include "ia/site_map.hpp"

namespace tra::ia {

inline constexpr std::int64_t kKeyValueBytes = 8;
inline constexpr std::int64_t kCountHeaderBytes = 8;

struct Transfer {
    std::int64_t payload_bytes = 0;   // tile bytes received by sites that lacked the tuple
    std::int64_t overhead_bytes = 0;  // keys and count headers, by the contract above
    std::int64_t tuples_moved = 0;    // tuple copies received (one per receiving site)
    std::int64_t pairs = 0;           // (sender, receiver) pairs exchanging >= 1 tuple
    // Per site, what it receives (payload and overhead): the exchange buffers a memory model
    // needs, and what each rank of the runtime checks against its own count.
    // Shared between the plans holding one costed node (per_site.hpp).
    PerSite received_payload, received_overhead;
    PerSite sent_payload;   // per site, tile bytes it sends
    PerSite sent_overhead;  // per site, keys and count headers it sends
    // Per site, the peers it sends tuples to and receives tuples from: the messages the time
    // model charges a latency for (one per communicating pair and direction).
    PerSite sent_messages, received_messages;

    std::int64_t total_bytes() const { return payload_bytes + overhead_bytes; }
};

// `s` as an index into per-site figures of `sites` sites; throws (Failed) outside 0..sites-1.
std::size_t site_index(Site s, int sites);

// Whether `s` is one of `holders` (in any order).
inline bool holds(std::span<const Site> holders, Site s) {
    return std::find(holders.begin(), holders.end(), s) != holders.end();
}

// The SiteMap of a key set under a placement (throws for Unknown).
SiteMap holders(const KeySet& keys, const Placement& placement, int sites);

// The one site that sends a copy of a tuple to `receiver`: holders[receiver mod |holders|] of
// the ascending holder list. Throws when nobody holds the tuple.
Site sender_for(std::span<const Site> holders, Site receiver);
// The same for holders known to be ascending and distinct already (a SiteMap's), unchecked.
inline Site sender_for_sorted(std::span<const Site> holders, Site receiver) {
    return holders[static_cast<std::size_t>(receiver) % holders.size()];
}

// Accumulates a Transfer copy by copy under the contract above, so every kind of exchange
// (move, reduce of partials) counts bytes the same way.
class TransferTally {
  public:
    TransferTally(int sites, std::size_t key_arity, std::size_t tile_bytes);
    // `count` tuple copies (a tile and its key each) travelling from `sender` to `receiver`.
    void copy(Site sender, Site receiver, std::int64_t count = 1) {
        if (static_cast<unsigned>(sender) >= static_cast<unsigned>(sites_) ||
            static_cast<unsigned>(receiver) >= static_cast<unsigned>(sites_))
            outside(sender, receiver);
        const auto s = static_cast<std::size_t>(sender), r = static_cast<std::size_t>(receiver);
        received_copies_[r] += count;
        sent_copies_[s] += count;
        sends_of(s)[r / 64] |= std::uint64_t{1} << (r % 64);
    }
    // `count` copies of a tuple held on `senders` (ascending, distinct) to each of `receivers`
    // (ascending, distinct) that does not hold it, each from sender_for_sorted(senders, receiver):
    // one call per tuple (or run of alike tuples) instead of one per copy, the planner's
    // innermost loop at 1024 sites.
    void copies_to(std::span<const Site> senders, std::span<const Site> receivers,
                   std::int64_t count = 1);
    // The totals, with one count header per communicating (sender, receiver) pair.
    Transfer finish();

  private:
    [[noreturn]] void outside(Site sender, Site receiver) const;  // throws naming the site
    std::vector<std::uint64_t>& sends_of(std::size_t sender) {    // its row, made at first use
        std::vector<std::uint64_t>& row = sends_to_[sender];
        if (row.empty()) row.assign((static_cast<std::size_t>(sites_) + 63) / 64, 0);
        return row;
    }

    int sites_;
    std::int64_t tile_, key_bytes_;
    // Per site, the tuple copies it receives and sends: the bytes follow in finish().
    std::vector<std::int64_t> received_copies_, sent_copies_;
    // Per sender, one bit per receiver it sends to (a row is made at its first copy): a set of
    // pairs cost a tree insert per copy, which dominated planning at 1024 sites.
    std::vector<std::vector<std::uint64_t>> sends_to_;
};

// Moving a relation with these keys (each of key_arity positions, tiles of tile_bytes) from
// one placement to another on `sites` sites. A bcast is a move to All, a shuffle a move to Part.
Transfer exact_transfer(const KeySet& keys, std::size_t key_arity, std::size_t tile_bytes,
                        const Placement& from, const Placement& to, int sites);
// The same, from tuples whose current sites are known explicitly.
Transfer exact_transfer(const SiteMap& from, std::size_t key_arity, std::size_t tile_bytes,
                        const Placement& to, int sites);

// Tile bytes each site holds when the relation has this placement (index = site).
std::vector<std::int64_t> resident_bytes(const KeySet& keys, std::size_t tile_bytes,
                                         const Placement& placement, int sites);

// The paper's model, in floats: f = tuples * elements per tile (paper_floats).
double paper_floats(std::int64_t tuples, std::int64_t tile_elements);
double paper_bcast_cost(double floats, int sites);
double paper_shuffle_cost(double floats);

}  // namespace tra::ia
