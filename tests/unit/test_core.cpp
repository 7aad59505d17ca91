#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "core/relation.hpp"
#include "core/tile.hpp"

using namespace tra;

TEST_CASE("error renders file, line, column and field") {
    Error e("unknown kernel 'foo'", {"wf.yaml", 3, 7, "program[0].AB.kernel"});
    CHECK(std::string(e.what()) == "wf.yaml:3:7: program[0].AB.kernel: unknown kernel 'foo'");
    CHECK(e.exit_code() == 2);
    CHECK(Error("x", {}, ErrorKind::Failed).exit_code() == 1);
}

TEST_CASE("key set box, frontier and holes") {
    KeySet box = KeySet::box(Frontier{2, 3});
    CHECK(box.size() == 6);
    CHECK(box.is_box(2));
    CHECK(box.frontier(2) == Frontier{2, 3});
    KeySet diag;
    diag.insert(Key{0, 0});
    diag.insert(Key{1, 1});
    CHECK(diag.frontier(2) == Frontier{2, 2});
    CHECK_FALSE(diag.is_box(2));
    CHECK(KeySet::box(Frontier{}).size() == 1);
}

TEST_CASE("tiles are typed, zeroed and deep-copied") {
    Tile t(DType::F32, Shape{2, 3});
    CHECK(t.bytes() == 24);
    CHECK(t.get(5) == 0.0);
    t.set(5, 1.5);
    Tile u = t;
    u.set(5, 2.5);
    CHECK(t.get(5) == 1.5);
    CHECK(u.data<float>()[5] == 2.5f);
    CHECK_THROWS_AS(t.data<double>(), Error);
    CHECK(reinterpret_cast<std::uintptr_t>(t.raw()) % 64 == 0);
}

// Large tiles start on a 2 MiB boundary so that their whole 2 MiB blocks can be huge pages
// (lib/core/tile.cpp); their contents behave like any tile's, tail included.
TEST_CASE("large tiles are huge-page aligned, zeroed to the last element") {
    const std::int64_t n = (std::int64_t{5} << 20) / 8 + 3;  // 5 MiB and a ragged tail
    Tile t(DType::F64, Shape{n});
    CHECK(reinterpret_cast<std::uintptr_t>(t.raw()) % (std::uintptr_t{1} << 21) == 0);
    CHECK(t.get(0) == 0.0);
    CHECK(t.get(n - 1) == 0.0);
    t.set(n - 1, 4.0);
    Tile u = Tile::uninitialized(DType::F64, Shape{n});
    CHECK(reinterpret_cast<std::uintptr_t>(u.raw()) % (std::uintptr_t{1} << 21) == 0);
    u = t;
    CHECK(u.get(n - 1) == 4.0);
    Tile small(DType::F64, Shape{1000});
    CHECK(reinterpret_cast<std::uintptr_t>(small.raw()) % 64 == 0);
}

TEST_CASE("relation type renders as R^(k,r,b)") {
    RelationType t{2, Shape{4, 8}, DType::F64};
    CHECK(t.str() == "R^(2,2,[4, 8]) f64");
    CHECK(t.tile_bytes() == 256);
}
