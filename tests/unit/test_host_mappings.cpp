// The memory of host tiles (core/host_mappings.hpp): reuse of freed mappings, the
// high-water bound on what the cache keeps, and reservations. Each case trims the cache first,
// so none depends on another having run.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "core/host_mappings.hpp"
#include "core/tile.hpp"

namespace {

using namespace tra;

constexpr std::size_t kMiB = std::size_t{1} << 20;

// A vector of f64 that fills a mapping of exactly `mib` MiB.
Shape of_mib(std::size_t mib) {
    return Shape{static_cast<std::int64_t>(mib * kMiB / 8)};
}

bool within_mark() {
    const auto u = host_mappings::usage();
    return u.live + u.cached <= u.high_water;
}

}  // namespace

TEST_CASE("small tiles have no mapping of their own") {
    CHECK(host_mappings::length_for(64 * 1024 - 8) == 0);
    CHECK(host_mappings::length_for(64 * 1024) == 64 * 1024);
    CHECK(host_mappings::length_for(400 * 400 * 8) == 313 * 4096);  // a 400 x 400 f64 tile
    CHECK(host_mappings::length_for(4 * kMiB) == 4 * kMiB);
    CHECK(host_mappings::length_for(4 * kMiB + 1) == 4 * kMiB + 4096);  // whole pages
}

TEST_CASE("a freed large tile's mapping serves the next tile of its length, zeroed when asked") {
    host_mappings::trim();
    void* first = nullptr;
    {
        Tile a(DType::F64, of_mib(8));
        a.set(0, 1.0);
        a.set(a.elements() - 1, 2.0);
        first = a.raw();
        CHECK(host_mappings::usage().live == 8 * kMiB);
    }
    CHECK(host_mappings::usage().cached == 8 * kMiB);
    Tile b(DType::F64, of_mib(8));
    CHECK(b.raw() == first);
    CHECK(b.get(0) == 0.0);
    CHECK(b.get(b.elements() - 1) == 0.0);
    const auto u = host_mappings::usage();
    CHECK(u.live == 8 * kMiB);
    CHECK(u.cached == 0);
    CHECK(u.high_water == 8 * kMiB);
}

TEST_CASE("the cache never takes the process past its high-water mark") {
    host_mappings::trim();
    { Tile a(DType::F64, of_mib(8)), b(DType::F64, of_mib(8)), c(DType::F64, of_mib(8)); }
    CHECK(host_mappings::usage().cached == 24 * kMiB);
    CHECK(host_mappings::usage().high_water == 24 * kMiB);
    // No 12 MiB mapping is cached. Either two of the 8 MiB ones are neighbours and serve it (4 MiB
    // left over), or it is mapped fresh and 12 MiB of them go first: 12 MiB stay cached either way.
    Tile d(DType::F64, of_mib(12));
    auto u = host_mappings::usage();
    CHECK(u.live == 12 * kMiB);
    CHECK(u.cached == 12 * kMiB);
    CHECK(u.high_water == 24 * kMiB);
    // Past the mark only by what live tiles need, with nothing cached left to give back.
    Tile e(DType::F64, of_mib(16));
    u = host_mappings::usage();
    CHECK(u.cached == 0);
    CHECK(u.live == 28 * kMiB);
    CHECK(u.high_water == 28 * kMiB);
    CHECK(within_mark());
}

TEST_CASE("a reservation keeps cached mappings it wants, maps the rest and restarts the mark") {
    host_mappings::trim();
    void* kept = nullptr;
    {
        Tile a(DType::F64, of_mib(8)), b(DType::F64, of_mib(12));
        kept = a.raw();
    }
    CHECK(host_mappings::reserve({8 * kMiB, 8 * kMiB}) == 16 * kMiB);
    auto u = host_mappings::usage();
    CHECK(u.cached == 16 * kMiB);  // the 12 MiB mapping was unmapped
    CHECK(u.high_water == 16 * kMiB);
    Tile c = Tile::uninitialized(DType::F64, of_mib(8));
    Tile d = Tile::uninitialized(DType::F64, of_mib(8));
    CHECK((c.raw() == kept || d.raw() == kept));
    CHECK(reinterpret_cast<std::uintptr_t>(c.raw()) % (std::uintptr_t{1} << 21) == 0);
    CHECK(reinterpret_cast<std::uintptr_t>(d.raw()) % (std::uintptr_t{1} << 21) == 0);
    u = host_mappings::usage();
    CHECK(u.live == 16 * kMiB);
    CHECK(u.cached == 0);
    CHECK(u.high_water == 16 * kMiB);  // no fresh mapping was needed
}

TEST_CASE("a longer cached mapping serves a tile with its end, the rest stays cached") {
    host_mappings::trim();
    void* first = nullptr;
    {
        Tile a(DType::F64, of_mib(8));
        a.set(a.elements() - 1, 5.0);
        first = a.raw();
    }
    // The cached 8 MiB mapping is cut: a tile under 4 MiB takes its end, so its start (on a
    // 2 MiB boundary) stays for a large tile.
    const std::size_t fresh = host_mappings::usage().fresh;
    Tile b(DType::F64, of_mib(2));
    CHECK(static_cast<char*>(b.raw()) == static_cast<char*>(first) + 6 * kMiB);
    CHECK(b.get(b.elements() - 1) == 0.0);
    auto u = host_mappings::usage();
    CHECK(u.live == 2 * kMiB);
    CHECK(u.cached == 6 * kMiB);
    CHECK(u.high_water == 8 * kMiB);
    Tile c(DType::F64, of_mib(6));
    CHECK(c.raw() == first);
    CHECK(host_mappings::usage().fresh == fresh);
    u = host_mappings::usage();
    CHECK(u.live == 8 * kMiB);
    CHECK(u.cached == 0);
    CHECK(within_mark());
}

TEST_CASE("mid-size tiles have mappings of their own, reused when freed") {
    host_mappings::trim();
    const Shape tile{400, 400};  // 1.25 MiB of f64
    void* first = nullptr;
    {
        Tile a(DType::F64, tile);
        a.set(7, 3.0);
        first = a.raw();
        CHECK(host_mappings::usage().live == 313 * 4096);
    }
    Tile b(DType::F64, tile);
    CHECK(b.raw() == first);
    CHECK(b.get(7) == 0.0);
}

namespace {
constexpr std::size_t kPage = 4096;

// Acquires mappings of `lengths` bytes (zeroed), each written to; returns their starts.
std::vector<char*> acquire_all(const std::vector<std::size_t>& lengths) {
    std::vector<char*> out;
    for (std::size_t length : lengths) {
        auto* p = static_cast<char*>(host_mappings::acquire(length, true));
        REQUIRE(p != nullptr);
        p[0] = 1;
        p[length - 1] = 1;
        out.push_back(p);
    }
    return out;
}

bool all_zero(const char* p, std::size_t length) {
    for (std::size_t at = 0; at < length; ++at)
        if (p[at] != 0) return false;
    return true;
}
}  // namespace

TEST_CASE("pieces cut from a cached mapping serve its length together again once freed") {
    // A loop's iteration cuts its reserved 1.25 MiB mappings into 200 KiB tiles and frees them:
    // the next iteration's 1.25 MiB tiles must find their pages, not map fresh ones.
    host_mappings::trim();
    const std::size_t big = 313 * kPage, piece = 50 * kPage, tail = 13 * kPage;
    char* whole = acquire_all({big})[0];
    host_mappings::release(whole, big);
    const auto before = host_mappings::usage();
    const std::vector<char*> pieces = acquire_all({piece, piece, piece, piece, piece, piece, tail});
    auto u = host_mappings::usage();
    CHECK(u.fresh == before.fresh);  // all cut from the cached mapping
    CHECK(u.cached == 0);
    CHECK(u.live == big);
    for (char* p : pieces) {
        CHECK(p >= whole);
        CHECK(p < whole + big);
    }
    // Freed in an order other than their addresses'.
    for (std::size_t k : {3, 0, 6, 1, 5, 2, 4})
        host_mappings::release(pieces[k], k == 6 ? tail : piece);
    u = host_mappings::usage();
    CHECK(u.cached == big);
    CHECK(u.mappings == 7);  // kept as freed, merged only when a longer tile needs them
    char* again = static_cast<char*>(host_mappings::acquire(big, true));
    CHECK(again == whole);
    CHECK(all_zero(again, big));
    u = host_mappings::usage();
    CHECK(u.fresh == before.fresh);
    CHECK(u.evicted == before.evicted);
    CHECK(u.cached == 0);
    CHECK(u.mappings == 0);
    CHECK(u.live == big);
    CHECK(u.high_water == big);
    host_mappings::release(again, big);
}

TEST_CASE("only neighbouring cached mappings serve together, within the high-water mark") {
    host_mappings::trim();
    const std::size_t piece = 50 * kPage;
    char* whole = acquire_all({6 * piece})[0];
    host_mappings::release(whole, 6 * piece);
    const std::vector<char*> pieces = acquire_all({piece, piece, piece, piece, piece, piece});
    const auto before = host_mappings::usage();
    REQUIRE(before.high_water == 6 * piece);
    // Three neighbours freed: they serve 120 pages, 30 stay cached.
    std::vector<char*> order(pieces);
    std::sort(order.begin(), order.end());
    for (int k : {1, 2, 3}) host_mappings::release(order[k], piece);
    char* p = static_cast<char*>(host_mappings::acquire(120 * kPage, true));
    CHECK(p >= order[1]);
    CHECK(p + 120 * kPage <= order[3] + piece);
    CHECK(all_zero(p, 120 * kPage));
    auto u = host_mappings::usage();
    CHECK(u.fresh == before.fresh);
    CHECK(u.cached == 30 * kPage);
    CHECK(u.high_water == before.high_water);
    CHECK(within_mark());
    // The 30 left over and order[5] are cached but not neighbours (order[4] is live): 60 pages
    // are mapped fresh, the cached ones unmapped first so that the mark holds.
    host_mappings::release(order[5], piece);
    char* q = static_cast<char*>(host_mappings::acquire(60 * kPage, true));
    u = host_mappings::usage();
    CHECK(u.fresh == before.fresh + 1);
    CHECK(u.evicted == before.evicted + 60 * kPage);
    CHECK(u.live + u.cached == before.high_water);
    CHECK(u.high_water == before.high_water);
    for (int k : {0, 4}) host_mappings::release(order[k], piece);
    host_mappings::release(p, 120 * kPage);
    host_mappings::release(q, 60 * kPage);
    CHECK(within_mark());
}

TEST_CASE("a large tile from neighbouring cached mappings starts on a 2 MiB boundary") {
    host_mappings::trim();
    char* whole = acquire_all({12 * kMiB})[0];
    REQUIRE(reinterpret_cast<std::uintptr_t>(whole) % (2 * kMiB) == 0);
    host_mappings::release(whole, 12 * kMiB);
    // Twelve 1 MiB tiles, each from the end of what is left; all but the first MiB freed.
    const std::vector<char*> pieces = acquire_all(std::vector<std::size_t>(12, kMiB));
    for (std::size_t k = 0; k < pieces.size(); ++k)
        if (pieces[k] != whole) host_mappings::release(pieces[k], kMiB);
    const auto before = host_mappings::usage();
    CHECK(before.cached == 11 * kMiB);
    // [1 MiB, 12 MiB) is cached: a 10 MiB tile fits from the boundary at 2 MiB on.
    char* p = static_cast<char*>(host_mappings::acquire(10 * kMiB, true));
    CHECK(p == whole + 2 * kMiB);
    CHECK(all_zero(p, 10 * kMiB));
    auto u = host_mappings::usage();
    CHECK(u.fresh == before.fresh);
    CHECK(u.cached == kMiB);  // [1 MiB, 2 MiB) is left over
    host_mappings::release(p, 10 * kMiB);
    // 10.5 MiB does not fit from a boundary (though 11 MiB are cached together): mapped fresh.
    char* q = static_cast<char*>(host_mappings::acquire(10 * kMiB + kMiB / 2, true));
    CHECK(reinterpret_cast<std::uintptr_t>(q) % (2 * kMiB) == 0);
    u = host_mappings::usage();
    CHECK(u.fresh == before.fresh + 1);
    CHECK(within_mark());
    host_mappings::release(q, 10 * kMiB + kMiB / 2);
    host_mappings::release(whole, kMiB);
}

TEST_CASE("a reservation carves the lengths it wants from pieces that are neighbours") {
    host_mappings::trim();
    const std::size_t big = 313 * kPage, piece = 50 * kPage, tail = 13 * kPage;
    char* whole = acquire_all({big})[0];
    host_mappings::release(whole, big);
    const std::vector<char*> pieces = acquire_all({piece, piece, piece, piece, piece, piece, tail});
    for (std::size_t k = 0; k < pieces.size(); ++k)
        host_mappings::release(pieces[k], k == 6 ? tail : piece);
    REQUIRE(host_mappings::usage().mappings == 7);
    CHECK(host_mappings::reserve({big}) == big);
    auto u = host_mappings::usage();
    CHECK(u.mappings == 1);
    CHECK(u.high_water == big);
    const std::size_t fresh = u.fresh;
    char* p = static_cast<char*>(host_mappings::acquire(big, true));
    CHECK(p == whole);
    CHECK(all_zero(p, big));
    CHECK(host_mappings::usage().fresh == fresh);
    host_mappings::release(p, big);
}
