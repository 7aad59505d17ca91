// The exact transfer model (payload, overhead contract, senders, per-site counts), resident
// bytes, and the paper's section 5.3 model reproducing Table 4 of the TRA paper.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "core/error.hpp"
#include "core/relation.hpp"
#include "ia/per_site_memo.hpp"
#include "ia/placement.hpp"
#include "ia/shared_costs.hpp"
#include "ia/transfer.hpp"

using namespace tra;
using namespace tra::ia;
using R = Placement::Replicate;

namespace {

constexpr std::size_t kTile = 8192;  // one 32x32 f64 tile
const KeySet k4x4 = KeySet::box(Frontier{4, 4});

Transfer move(const Placement& from, const Placement& to, int s) {
    return exact_transfer(k4x4, 2, kTile, from, to, s);
}

}  // namespace

TEST_CASE("bcast from Part sends S-1 copies of every tile", "[transfer]") {
    for (int s : {2, 3}) {
        INFO("S=" << s);
        const auto t = move(Placement::part({0}), Placement::all(), s);
        CHECK(t.payload_bytes == 16 * (s - 1) * 8192);
        CHECK(t.tuples_moved == 16 * (s - 1));
        // Every site holds a row of the 4x4, so every ordered pair exchanges tuples.
        CHECK(t.pairs == s * (s - 1));
        CHECK(t.overhead_bytes == 16 * (s - 1) * 2 * 8 + s * (s - 1) * 8);
        CHECK(t.total_bytes() == t.payload_bytes + t.overhead_bytes);
    }
    // S = 3 per site: site 0 holds rows 0 and 3 (8 tiles) and receives the other 8.
    const auto t = move(Placement::part({0}), Placement::all(), 3);
    CHECK(t.received_payload == std::vector<std::int64_t>{8 * 8192, 12 * 8192, 12 * 8192});
    CHECK(t.sent_payload == std::vector<std::int64_t>{16 * 8192, 8 * 8192, 8 * 8192});
    CHECK(t.received_overhead ==
          std::vector<std::int64_t>{8 * 16 + 2 * 8, 12 * 16 + 2 * 8, 12 * 16 + 2 * 8});
}

TEST_CASE("moves that send nothing", "[transfer]") {
    for (int s = 1; s <= 4; ++s) {
        INFO("S=" << s);
        // bcast of an All relation.
        CHECK(move(Placement::all(), Placement::all(), s).total_bytes() == 0);
        // Shuffle of an All relation: every site already holds what it is assigned.
        CHECK(move(Placement::all(), Placement::part({1}), s).total_bytes() == 0);
        CHECK(move(Placement::all(), Placement::part({1, 0}), s).total_bytes() == 0);
        // Shuffle to the placement it already has.
        CHECK(move(Placement::part({0, 1}), Placement::part({0, 1}), s).total_bytes() == 0);
        CHECK(move(Placement::part({}), Placement::part({}), s).pairs == 0);
    }
    const auto g = Placement::grid(0, 1, 2, 2, R::AlongRow);
    CHECK(move(g, g, 4).total_bytes() == 0);
    // Dropping replicas (replicated -> one copy) sends nothing either.
    CHECK(move(g, Placement::grid(0, 1, 2, 2), 4).total_bytes() == 0);
    // On one site nothing ever moves.
    CHECK(move(Placement::part({0}), Placement::all(), 1).total_bytes() == 0);
}

TEST_CASE("Part[0] -> Part[1] moves exactly the tuples whose site changes", "[transfer]") {
    // S = 2: (i, j) moves from site i mod 2 to j mod 2 iff i and j differ in parity:
    // 8 of the 16 tuples, 4 in each direction.
    const auto t = move(Placement::part({0}), Placement::part({1}), 2);
    CHECK(t.tuples_moved == 8);
    CHECK(t.payload_bytes == 8 * 8192);
    CHECK(t.pairs == 2);
    CHECK(t.overhead_bytes == 8 * 2 * 8 + 2 * 8);
    CHECK(t.received_payload == std::vector<std::int64_t>{4 * 8192, 4 * 8192});
    // S = 3: i mod 3 != j mod 3 for 16 - (4 + 1 + 1) = 10 tuples of the 4x4.
    CHECK(move(Placement::part({0}), Placement::part({1}), 3).tuples_moved == 10);
}

TEST_CASE("replicated sources pick the sender by the contract", "[transfer]") {
    // 1x2 grid replicated along its row on S = 3: every tuple on sites {0, 1}; site 2 gets
    // each tuple from holders[2 mod 2] = site 0.
    const auto g = Placement::grid(0, 1, 1, 2, R::AlongRow);
    const auto t = move(g, Placement::all(), 3);
    CHECK(t.tuples_moved == 16);
    CHECK(t.sent_payload == std::vector<std::int64_t>{16 * 8192, 0, 0});
    CHECK(t.pairs == 1);
    using Holders = std::vector<Site>;
    CHECK(sender_for(Holders{0, 1}, 2) == 0);
    CHECK(sender_for(Holders{3, 1}, 3) == 3);
    CHECK(sender_for(Holders{1, 3, 1}, 2) == 1);
    CHECK_THROWS_AS(sender_for(Holders{}, 0), Error);
}

TEST_CASE("grid enforcers for SUMMA", "[transfer]") {
    // A 4x4 matrix on Part[0] over S = 4 moved to a 2x2 grid replicated along rows: tuple
    // (i, k) must be on the 2 sites of grid row i mod 2, and was on site i mod 4.
    const auto t = move(Placement::part({0}), Placement::grid(0, 1, 2, 2, R::AlongRow), 4);
    // Grid row g = sites {2g, 2g+1}. Row i: holder i, targets grid row i mod 2:
    //   i=0: {0,1} from 0 -> 1 copy;  i=1: {2,3} from 1 -> 2;  i=2: {0,1} from 2 -> 2;
    //   i=3: {2,3} from 3 -> 1.  Four tiles per row: (1 + 2 + 2 + 1) * 4 = 24 copies.
    CHECK(t.tuples_moved == 24);
    CHECK(t.payload_bytes == 24 * 8192);
}

TEST_CASE("explicit holders and Unknown", "[transfer]") {
    try {
        move(Placement::unknown(), Placement::all(), 2);
        FAIL("moving from Unknown must throw");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::Failed);
    }
    CHECK_THROWS_AS(move(Placement::all(), Placement::unknown(), 2), Error);
    // A planner that traced a remapped relation passes where its tuples really are.
    SiteMap held{{Key{0}, {1}}, {Key{1}, {1}}, {Key{2}, {0, 1}}};
    const auto t = exact_transfer(held, 1, 100, Placement::part({0}), 2);
    // Key 0 -> site 0 (from 1), key 1 stays on 1, key 2 already on 0.
    CHECK(t.payload_bytes == 100);
    CHECK(t.overhead_bytes == 8 + 8);
    CHECK(holders(KeySet::box(Frontier{2}), Placement::part({0}), 2) ==
          SiteMap{{Key{0}, {0}}, {Key{1}, {1}}});
    CHECK_THROWS_AS(exact_transfer(held, 2, 100, Placement::all(), 2), Error);  // arity
    CHECK_THROWS_AS(exact_transfer(SiteMap{{Key{0}, {5}}}, 1, 1, Placement::all(), 2), Error);
}

namespace {

// The contract of transfer.hpp written out copy by copy: every receiver that lacks a tuple gets
// one copy from sender_for; one count header per communicating pair.
Transfer by_definition(const SiteMap& from, std::size_t arity, std::size_t tile,
                       const Placement& to, int sites) {
    TransferTally tally(sites, arity, tile);
    for (const auto& [key, held] : from)
        for (Site r : to.sites(key, sites))
            if (std::find(held.begin(), held.end(), r) == held.end())
                tally.copy(sender_for(held, r), r);
    return tally.finish();
}

void check_same(const Transfer& got, const Transfer& want) {
    CHECK(got.payload_bytes == want.payload_bytes);
    CHECK(got.overhead_bytes == want.overhead_bytes);
    CHECK(got.tuples_moved == want.tuples_moved);
    CHECK(got.pairs == want.pairs);
    CHECK(got.received_payload == want.received_payload);
    CHECK(got.received_overhead == want.received_overhead);
    CHECK(got.sent_payload == want.sent_payload);
    CHECK(got.sent_overhead == want.sent_overhead);
    CHECK(got.sent_messages == want.sent_messages);
    CHECK(got.received_messages == want.received_messages);
}

}  // namespace

TEST_CASE("moves tallied in runs of alike tuples match the contract copy by copy", "[transfer]") {
    // exact_transfer tallies consecutive tuples with the same holders and receivers at once and
    // skips recomputing receivers for keys the target places alike; holders() shares the sites
    // of keys the source places alike. Random holders (runs of one list, single and several
    // senders, some on every site) and every kind of target, against the definition.
    std::uint64_t state = 99;
    const auto next = [&](int below) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<int>((state >> 17) % static_cast<std::uint64_t>(below));
    };
    for (const int sites : {1, 3, 7, 70}) {
        const std::vector<Placement> targets = {
            Placement::part({0}),
            Placement::part({2, 0}),
            Placement::part({1}),
            Placement::all(),
            Placement::grid(0, 2, 1, sites, R::AlongColumn),
            Placement::grid(1, 2, sites >= 6 ? 2 : 1, sites >= 6 ? 3 : 1, R::AlongRow),
            Placement::layered_grid(0, 2, 1, 1, 1, sites, R::None),
        };
        SiteMap held;
        std::vector<Site> list;
        for (const Key& key : KeySet::box(Frontier{3, 4, 5})) {
            if (held.empty() || next(3) == 0) {  // a new list, else the run goes on
                list.clear();
                const int n = next(4) == 0 ? sites : 1 + next(std::min(sites, 3));
                for (int i = 0; i < n; ++i) list.push_back(n == sites ? i : next(sites));
                held.append(key, list);
            } else {
                held.append(key);
            }
        }
        for (const Placement& to : targets) {
            INFO(sites << " sites, to " << to.str());
            check_same(exact_transfer(held, 3, 100, to, sites),
                       by_definition(held, 3, 100, to, sites));
            // holders() of a box under a placement: each key where the placement puts it.
            if (to.kind() == Placement::Kind::All) continue;
            const KeySet box = KeySet::box(Frontier{3, 4, 5});
            const SiteMap placed = holders(box, to, sites);
            REQUIRE(placed.size() == box.size());
            for (const auto& [key, on] : placed)
                CHECK(std::vector<Site>(on.begin(), on.end()) == to.sites(key, sites));
        }
    }
}

TEST_CASE("resident bytes per site", "[transfer]") {
    CHECK(resident_bytes(k4x4, kTile, Placement::part({0}), 3) ==
          std::vector<std::int64_t>{8 * 8192, 4 * 8192, 4 * 8192});
    CHECK(resident_bytes(k4x4, kTile, Placement::all(), 2) ==
          std::vector<std::int64_t>{16 * 8192, 16 * 8192});
    CHECK(resident_bytes(k4x4, kTile, Placement::grid(0, 1, 2, 2, R::AlongColumn), 5) ==
          std::vector<std::int64_t>{8 * 8192, 8 * 8192, 8 * 8192, 8 * 8192, 0});
}

TEST_CASE("paper model: f * S per bcast, f per shuffle, whatever the source", "[transfer]") {
    CHECK(paper_floats(16, 32 * 32) == 16384.0);
    CHECK(paper_bcast_cost(16384.0, 3) == 49152.0);
    CHECK(paper_shuffle_cost(16384.0) == 16384.0);
}

TEST_CASE("paper model reproduces Table 4 of the TRA paper (s = 10)", "[transfer]") {
    // BMM: bcast B (A row-partitioned; the final shuffle removed by R2-4).
    // CMM: shuffle of the unaggregated join output, I*J per K block, s K blocks.
    // RMM: shuffle of A replicated xDups = 5 times and B replicated yDups = 5 times.
    struct Shape {
        double i, k, j, bmm, cmm, rmm;
    };
    const int s = 10;
    for (const Shape& m : {Shape{4e4, 4e4, 4e4, 1.6e10, 1.6e10, 1.6e10},
                           Shape{1e4, 6.4e5, 1e4, 6.4e10, 1.0e9, 6.4e10},
                           Shape{8e4, 1e4, 8e4, 8.0e9, 6.4e10, 8.0e9}}) {
        const double a = m.i * m.k, b = m.k * m.j;
        CHECK(paper_bcast_cost(b, s) == Approx(m.bmm));
        CHECK(paper_shuffle_cost(m.i * m.j * s) == Approx(m.cmm));
        CHECK(paper_shuffle_cost(5 * a) + paper_shuffle_cost(5 * b) == Approx(m.rmm));
    }
}

TEST_CASE("site maps: keys ascending, sites sorted and distinct", "[transfer][site_map]") {
    SiteMap map;
    map.append(Key{0, 1}, std::vector<Site>{3, 1, 3});
    map.append(Key{1, 0}, std::vector<Site>{2});
    CHECK(map.size() == 2);
    CHECK(std::vector<Site>(map.at(Key{0, 1}).begin(), map.at(Key{0, 1}).end()) ==
          std::vector<Site>{1, 3});
    CHECK(map.find(Key{1, 1}) == map.end());
    CHECK_THROWS_AS(map.at(Key{1, 1}), Error);
    // Appending out of key order would break find(): refused.
    CHECK_THROWS_AS(map.append(Key{0, 5}, std::vector<Site>{0}), Error);
    // The same map from pairs in any order, with repeats, and from a list.
    CHECK(SiteMap::from_pairs({{Key{1, 0}, 2}, {Key{0, 1}, 3}, {Key{0, 1}, 1}, {Key{0, 1}, 3}}) ==
          map);
    CHECK(SiteMap{{Key{1, 0}, {2}}, {Key{0, 1}, {3}}, {Key{0, 1}, {1}}} == map);
    std::vector<Key> keys;
    std::size_t sites = 0;
    for (const auto& [key, held] : map) {
        keys.push_back(key);
        sites += held.size();
    }
    CHECK(keys == std::vector<Key>{Key{0, 1}, Key{1, 0}});
    CHECK(sites == 3);
    CHECK(SiteMap::from_pairs({}).empty());
}

TEST_CASE("site maps from pairs: packed and compared keys sort alike", "[transfer][site_map]") {
    // from_pairs sorts small non-negative keys as packed integers and others key by key: both
    // must give the map of the definition (each key's distinct sites, keys ascending).
    const std::vector<std::vector<std::int64_t>> ranges = {
        {3, 7, 2},                                          // packed
        {1, 5, 1},                                          // packed, zero-width positions
        {1000, 1, 1000000},                                 // packed, uneven widths
        {std::int64_t{1} << 40, 5, std::int64_t{1} << 30},  // too wide to pack
    };
    std::uint64_t state = 12345;
    const auto next = [&](std::int64_t below) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<std::int64_t>((state >> 17) % static_cast<std::uint64_t>(below));
    };
    for (const auto& range : ranges)
        for (const bool negative : {false, true}) {
            std::vector<std::pair<Key, Site>> pairs;
            std::map<Key, std::set<Site>> want;
            for (int k = 0; k < 300; ++k) {
                Key key{next(range[0]), next(range[1]), next(range[2])};
                if (negative && k % 7 == 0) key[1] = -1 - key[1];  // not packed
                const auto site = static_cast<Site>(next(9));
                pairs.emplace_back(key, site);
                want[key].insert(site);
            }
            const SiteMap got = SiteMap::from_pairs(pairs);
            REQUIRE(got.size() == want.size());
            auto w = want.begin();
            for (const auto& [key, held] : got) {
                CHECK(key == w->first);
                CHECK(std::vector<Site>(held.begin(), held.end()) ==
                      std::vector<Site>(w->second.begin(), w->second.end()));
                ++w;
            }
        }
}

TEST_CASE("shared costs give the numbers computed directly", "[transfer][shared_costs]") {
    const Frontier box{6, 5};
    const int S = 4;
    const std::vector<Placement> placements = {Placement::part({0}), Placement::part({1, 0}),
                                               Placement::all(),
                                               Placement::grid(0, 1, 2, 2, R::AlongRow)};
    // The default budget, and one of a few entries: generations turn over all the time, the
    // numbers stay the same.
    for (const std::size_t budget : {std::size_t{512} << 20, std::size_t{4000}}) {
        SharedCosts shared(budget);
        // Twice over: the second round is answered from what the first kept.
        for (int round = 0; round < 2; ++round)
            for (const Placement& from : placements) {
                const std::shared_ptr<const SiteMap> held = shared.box_holders(box, from, S);
                CHECK(*held == holders(KeySet::box(box), from, S));
                for (const Placement& to : placements) {
                    const Transfer got = shared.box_transfer(box, 2, 100, from, to, S, *held);
                    const Transfer want = exact_transfer(KeySet::box(box), 2, 100, from, to, S);
                    check_same(got, want);
                }
            }
        // The same description asked again is the same object, not a copy (when it fits).
        if (budget > 4000)
            CHECK(shared.box_holders(box, placements[0], S) ==
                  shared.box_holders(box, placements[0], S));
    }
}

TEST_CASE("per-site figures: copies share one array, compared by value", "[transfer]") {
    const ia::PerSite none;
    CHECK(none.empty());
    CHECK(none.size() == 0);
    CHECK(none == std::vector<std::int64_t>{});

    const ia::PerSite bytes = std::vector<std::int64_t>{8, 0, 24};
    const ia::PerSite copy = bytes;  // NOLINT(performance-unnecessary-copy-initialization)
    CHECK(&copy.values() == &bytes.values());  // shared, not copied
    CHECK(copy == bytes);
    CHECK(copy[2] == 24);
    CHECK(copy.at(1) == 0);
    CHECK_THROWS(copy.at(3));
    std::int64_t sum = 0;
    for (std::int64_t b : copy) sum += b;
    CHECK(sum == 32);
    CHECK(ia::PerSite{8, 0, 24} == bytes);             // a different array, equal values
    CHECK_FALSE(ia::PerSite{8, 0} == bytes.values());  // sizes differ
}

TEST_CASE("per-site memo: found by the arrays it was made from, never by a successor",
          "[transfer]") {
    PerSiteMemo<2, 1, int> memo;
    auto a = std::make_unique<PerSite>(std::vector<std::int64_t>{1, 2, 3});
    const PerSite b = std::vector<std::int64_t>{4};
    memo.add({a.get(), &b}, {0.5}, 7);
    REQUIRE(memo.find({a.get(), &b}, {0.5}) != nullptr);
    CHECK(*memo.find({a.get(), &b}, {0.5}) == 7);
    const PerSite copy = *a;  // shares a's array: the same identity
    CHECK(memo.find({&copy, &b}, {0.5}) != nullptr);
    CHECK(memo.find({a.get(), &b}, {0.25}) == nullptr);  // other scalars
    CHECK(memo.find({&b, a.get()}, {0.5}) == nullptr);   // other roles
    CHECK(memo.find({a.get(), nullptr}, {0.5}) == nullptr);
    const PerSite equal = std::vector<std::int64_t>{1, 2, 3};
    CHECK(memo.find({&equal, &b}, {0.5}) == nullptr);  // equal values, another array
    // Once a's array is gone, an array made at its address (likely: same size) must not match.
    const void* old = a->identity();
    a.reset();
    CHECK(copy.identity() == old);  // still alive through the copy
    CHECK(memo.find({&copy, &b}, {0.5}) != nullptr);
    memo.add({nullptr, nullptr}, {0.5}, 9);  // nothing to key by: not kept
    CHECK(memo.find({nullptr, nullptr}, {0.5}) == nullptr);
}

TEST_CASE("per-site memo: an entry whose arrays died never matches", "[transfer]") {
    PerSiteMemo<1, 0, int> memo;
    const void* first = nullptr;
    {
        const PerSite gone = std::vector<std::int64_t>{1, 2, 3};
        first = gone.identity();
        memo.add({&gone}, {}, 1);
    }
    // Allocate until an array lands at the dead one's address (or give up: then nothing to
    // check); either way no new array may find the old entry.
    std::vector<PerSite> made;
    for (int i = 0; i < 64; ++i) {
        made.emplace_back(std::vector<std::int64_t>{4, 5, 6});
        CHECK(memo.find({&made.back()}, {}) == nullptr);
        if (made.back().identity() == first) break;
    }
}
