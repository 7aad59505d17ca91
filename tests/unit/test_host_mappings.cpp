// The memory of host tiles (core/host_mappings.hpp): reuse of freed mappings, the
// high-water bound on what the cache keeps, and reservations. Each case trims the cache first,
// so none depends on another having run.
#include <catch2/catch.hpp>
#include <cstdint>

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
    // No 12 MiB mapping is cached: 8 MiB ones go until the new one fits under the mark.
    Tile d(DType::F64, of_mib(12));
    auto u = host_mappings::usage();
    CHECK(u.live == 12 * kMiB);
    CHECK(u.cached == 8 * kMiB);
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

TEST_CASE("with no room under the mark, a longer cached mapping serves with its head") {
    host_mappings::trim();
    void* first = nullptr;
    {
        Tile a(DType::F64, of_mib(8));
        first = a.raw();
    }
    // No room for a fresh 2 MiB mapping: the cached 8 MiB one is cut, its tail stays cached.
    Tile b(DType::F64, of_mib(2));
    CHECK(b.raw() == first);
    CHECK(b.get(0) == 0.0);
    auto u = host_mappings::usage();
    CHECK(u.live == 2 * kMiB);
    CHECK(u.cached == 6 * kMiB);
    CHECK(u.high_water == 8 * kMiB);
    Tile c(DType::F64, of_mib(6));
    CHECK(static_cast<char*>(c.raw()) == static_cast<char*>(first) + 2 * kMiB);
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
