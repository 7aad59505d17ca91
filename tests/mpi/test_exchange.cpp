// The exchange protocol (runtime/exchange.hpp) between the ranks of MPI_COMM_WORLD, run under
// mpiexec -n 1..4: every rank sends known tiles to the others and checks what it receives, and
// the payload, overhead and buffer bytes, against counts made by hand from the protocol's
// definition ([int64 count], then per tuple [key values][tile bytes]). On host memory messages
// travel in place; with a host-backed stand-in for device memory the staged path (pinned or
// device buffers) runs the same protocol without a GPU.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "../unit/host_device_fixtures.hpp"
#include "core/device_memory.hpp"
#include "core/error.hpp"
#include "runtime/exchange.hpp"

namespace {

using namespace tra;
using runtime::ExchangeMemory;
using runtime::ExchangeStats;
using runtime::MessageBuffer;
using runtime::OutgoingTuple;

struct World {
    int me = 0, size = 1;
    World() {
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    std::size_t ranks() const { return static_cast<std::size_t>(size); }
};

// Tiles of 2 x 3 f64 (48 bytes) under keys of two positions (16 bytes).
const RelationType kType{2, Shape{2, 3}, DType::F64};
constexpr std::int64_t kTileBytes = 48, kKeyBytes = 16, kCountBytes = 8;

// The tile rank `from` sends as its i-th tuple to rank `to`: element e holds
// from * 1000 + to * 100 + i * 10 + e, so every received element says where it came from.
Tile sent_tile(int from, int to, std::int64_t i) {
    Tile t(DType::F64, Shape{2, 3});
    for (std::int64_t e = 0; e < 6; ++e) t.set(e, from * 1000 + to * 100 + i * 10 + e);
    return t;
}

// How many tuples rank `from` sends to rank `to`: 0, 1 or 2 by the pair, so some pairs carry
// no message at all.
std::int64_t tuples_between(int from, int to) {
    return from == to ? 0 : (from + 2 * to) % 3;
}

struct Received {
    int source;
    Key key;
    Tile tile;
};

// Every rank sends tuples_between(me, d) tuples to every d, keyed {me, 10 * d + i}, its tiles
// in `sent_in`; returns what arrived, in delivery order, and the stats.
std::pair<std::vector<Received>, ExchangeStats> all_to_all(const World& w,
                                                           const ExchangeMemory& memory,
                                                           std::size_t max_message_bytes,
                                                           Residence sent_in = Residence::Host) {
    std::vector<std::vector<Key>> keys(w.ranks()), expect(w.ranks());
    std::vector<std::vector<Tile>> tiles(w.ranks());
    std::vector<std::vector<OutgoingTuple>> send(w.ranks());
    for (int d = 0; d < w.size; ++d) {
        const auto du = static_cast<std::size_t>(d);
        for (std::int64_t i = 0; i < tuples_between(w.me, d); ++i) {
            keys[du].push_back(Key{w.me, 10 * d + i});
            tiles[du].push_back(sent_tile(w.me, d, i).to(sent_in));
        }
        for (std::size_t i = 0; i < keys[du].size(); ++i)
            send[du].emplace_back(&keys[du][i], &tiles[du][i]);
        for (std::int64_t i = 0; i < tuples_between(d, w.me); ++i)
            expect[du].push_back(Key{d, 10 * w.me + i});
    }
    std::vector<Received> got;
    const ExchangeStats stats = runtime::exchange(
        MPI_COMM_WORLD, 7, kType, send, expect,
        [&](int src, Key k, Tile t) {
            got.push_back({src, std::move(k), std::move(t)});
        },
        memory, max_message_bytes);
    return {std::move(got), stats};
}

// The tuples this rank must receive, in delivery order (source ascending, then message order).
std::vector<std::pair<int, Key>> expected_arrivals(const World& w) {
    std::vector<std::pair<int, Key>> out;
    for (int s = 0; s < w.size; ++s)
        for (std::int64_t i = 0; i < tuples_between(s, w.me); ++i)
            out.emplace_back(s, Key{s, 10 * w.me + i});
    return out;
}

void check_arrivals(const World& w, const std::vector<Received>& got, Residence tiles) {
    const auto want = expected_arrivals(w);
    REQUIRE(got.size() == want.size());
    for (std::size_t j = 0; j < got.size(); ++j) {
        CHECK(got[j].source == want[j].first);
        CHECK(got[j].key == want[j].second);
        CHECK(got[j].tile.residence() == tiles);
        const Tile host = got[j].tile.to(Residence::Host);
        const std::int64_t i = got[j].key[1] - 10 * w.me;
        for (std::int64_t e = 0; e < 6; ++e)
            CHECK(host.get(e) == got[j].source * 1000 + w.me * 100 + i * 10 + e);
    }
}

// Payload and overhead this rank receives, by hand: 48 bytes per tile, 16 per key, 8 per
// message (a message per source sending at least one tuple).
std::pair<std::int64_t, std::int64_t> received_bytes(const World& w) {
    std::int64_t payload = 0, overhead = 0;
    for (int s = 0; s < w.size; ++s) {
        const std::int64_t n = tuples_between(s, w.me);
        payload += n * kTileBytes;
        if (n > 0) overhead += kCountBytes + n * kKeyBytes;
    }
    return {payload, overhead};
}

// Buffers held: on host memory the header arrays of every message (count and keys), staged the
// whole message of every message sent and received.
std::int64_t buffer_bytes(const World& w, bool staged) {
    std::int64_t bytes = 0;
    for (int peer = 0; peer < w.size; ++peer)
        for (const std::int64_t n : {tuples_between(peer, w.me), tuples_between(w.me, peer)})
            if (n > 0) bytes += kCountBytes + n * (kKeyBytes + (staged ? kTileBytes : 0));
    return bytes;
}

}  // namespace

TEST_CASE("every rank receives the tiles sent to it, and the bytes the protocol defines") {
    const World w;
    // 7 bytes cuts counts, keys and tiles mid-value; 64 bytes is one key and tile per piece.
    for (const std::size_t limit : {runtime::kMaxMessageBytes, std::size_t{64}, std::size_t{7}}) {
        CAPTURE(limit, w.me, w.size);
        const auto [got, stats] = all_to_all(w, {}, limit);
        check_arrivals(w, got, Residence::Host);
        const auto [payload, overhead] = received_bytes(w);
        CHECK(stats.payload_bytes == payload);
        CHECK(stats.overhead_bytes == overhead);
        CHECK(stats.buffer_bytes == buffer_bytes(w, false));
    }
}

TEST_CASE("staged messages carry the same bytes as messages in place") {
    const World w;
    const testing::InstalledHostDevice device;
    const ExchangeMemory pinned{Residence::Device, MessageBuffer::Kind::Pinned};
    const ExchangeMemory on_device{Residence::Device, MessageBuffer::Kind::Device};
    const ExchangeMemory host_buffers{Residence::Host, MessageBuffer::Kind::Pinned};
    for (const ExchangeMemory& memory : {pinned, on_device, host_buffers})
        for (const std::size_t limit : {runtime::kMaxMessageBytes, std::size_t{7}}) {
            CAPTURE(limit, w.me, w.size, memory.tiles == Residence::Device);
            const auto [got, stats] = all_to_all(w, memory, limit, Residence::Device);
            check_arrivals(w, got, memory.tiles);
            const auto [payload, overhead] = received_bytes(w);
            CHECK(stats.payload_bytes == payload);
            CHECK(stats.overhead_bytes == overhead);
            CHECK(stats.buffer_bytes == buffer_bytes(w, true));
        }
}

TEST_CASE("partials of a group from every rank reach its home, told apart by source") {
    // Groups g = 0 .. 2S-1, home g mod S; every rank holds a partial of every group, with
    // elements rank * 100 + g + e / 8, and sends it home unless it is the home.
    const World w;
    const RelationType type{1, Shape{4}, DType::F64};
    std::vector<Key> groups;
    std::vector<Tile> partials;
    for (int g = 0; g < 2 * w.size; ++g) {
        groups.push_back(Key{g});
        Tile t(DType::F64, Shape{4});
        for (std::int64_t e = 0; e < 4; ++e) t.set(e, w.me * 100 + g + e / 8.0);
        partials.push_back(std::move(t));
    }
    std::vector<std::vector<OutgoingTuple>> send(w.ranks());
    std::vector<std::vector<Key>> expect(w.ranks());
    for (int g = 0; g < 2 * w.size; ++g) {
        const int home = g % w.size;
        const auto gu = static_cast<std::size_t>(g);
        if (home != w.me)
            send[static_cast<std::size_t>(home)].emplace_back(&groups[gu], &partials[gu]);
        if (home == w.me)
            for (int s = 0; s < w.size; ++s)
                if (s != w.me) expect[static_cast<std::size_t>(s)].push_back(Key{g});
    }
    std::map<std::pair<Key, int>, Tile> got;
    const ExchangeStats stats = runtime::exchange(
        MPI_COMM_WORLD, 3, type, send, expect,
        [&](int src, Key k, Tile t) {
            got.emplace(std::make_pair(std::move(k), src), std::move(t));
        },
        {}, 12);
    // This rank is home to groups me and me + S, and gets both from each of the S - 1 others.
    const std::int64_t others = w.size - 1;
    CHECK(got.size() == static_cast<std::size_t>(2 * others));
    for (const int g : {w.me, w.me + w.size})
        for (int s = 0; s < w.size; ++s) {
            if (s == w.me) continue;
            const auto it = got.find({Key{g}, s});
            REQUIRE(it != got.end());
            for (std::int64_t e = 0; e < 4; ++e) CHECK(it->second.get(e) == s * 100 + g + e / 8.0);
        }
    CHECK(stats.payload_bytes == 2 * others * 32);
    CHECK(stats.overhead_bytes == others * (8 + 2 * 8));
}

TEST_CASE("a tuple other than the plan's fails on its receiver") {
    // Rank 1 sends rank 0 the key {1, 0}; rank 0 expects {1, 5}: same size, wrong key.
    const World w;
    if (w.size < 2) return;
    const Key key{1, 0};
    const Tile tile = sent_tile(1, 0, 0);
    std::vector<std::vector<OutgoingTuple>> send(w.ranks());
    std::vector<std::vector<Key>> expect(w.ranks());
    if (w.me == 1) send[0].emplace_back(&key, &tile);
    if (w.me == 0) expect[1].push_back(Key{1, 5});
    const auto run = [&] {
        runtime::exchange(MPI_COMM_WORLD, 5, kType, send, expect, [](int, Key, Tile) {});
    };
    if (w.me == 0)
        CHECK_THROWS_WITH(run(),
                          Catch::Contains("rank 1 sent tuple (1, 0) where the plan says (1, 5)"));
    else
        CHECK_NOTHROW(run());
}
