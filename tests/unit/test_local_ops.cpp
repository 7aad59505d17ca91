// The local operators of runtime/local_ops.hpp on the tuples one rank holds: the ones that pass
// tiles on unchanged (a rekey's, a filter's, a fill's, a group's only tile) copy them from an
// input the caller keeps and move them out of one it gives up (its last reader), with the same
// keys and values either way.
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>

#include "program_fixtures.hpp"
#include "runtime/local_ops.hpp"
#include "tra/program_builder.hpp"

using namespace tra;
using kernels::KernelCall;
using runtime::Tuples;
using tra::testing::at;
using tra::testing::generated;

namespace {

// A 2 x 2 grid of 2 x 2 tiles, tile (i, j) holding 10 i + j in its first element.
Tuples grid() {
    Tuples t;
    for (std::int64_t i = 0; i < 2; ++i)
        for (std::int64_t j = 0; j < 2; ++j) {
            Tile tile(DType::F64, Shape{2, 2});
            tile.data<double>()[0] = static_cast<double>(10 * i + j);
            t.emplace(Key{i, j}, std::move(tile));
        }
    return t;
}

// Where each tile's buffer is, by key.
std::map<Key, const void*> buffers(const Tuples& t) {
    std::map<Key, const void*> at;
    for (const auto& [k, tile] : t) at[k] = tile.raw();
    return at;
}

// First elements by key.
std::map<Key, double> firsts(const Tuples& t) {
    std::map<Key, double> v;
    for (const auto& [k, tile] : t) v[k] = tile.data<double>()[0];
    return v;
}

struct Steps {
    Program program;
    const Node& node(const char* name) const { return program.node(*program.find(name)); }
};

Steps steps() {
    ProgramBuilder b("p", DType::F64);
    b.add_input("A", Shape{4, 4}, Shape{2, 2}, DType::F64, generated(), at("A"));
    b.add_filter("D", "A", "k0 == k1", at("D"));
    b.add_rekey("R", "A", "(k1, k0)", at("R"));
    b.add_aggregate("S", "A", {0}, KernelCall("add"), at("S"));
    b.add_aggregate("I", "A", {0, 1}, KernelCall("add"), at("I"));
    for (const char* name : {"R", "S", "I"}) b.add_output(name, "o.h5", name, at("o"));
    return {b.finish()};
}

}  // namespace

TEST_CASE("a filter and a rekey move the tiles of an input given up, copy a kept one's",
          "[local_ops]") {
    const Steps s = steps();
    const Frontier& frontier = s.node("A").frontier;
    for (const char* name : {"D", "R"}) {
        INFO(name);
        const Node& n = s.node(name);
        const Tuples kept = grid();
        const Tuples copied = runtime::map_tuples(n, n.op, kept, frontier);
        Tuples given = grid();
        const std::map<Key, const void*> before = buffers(given);
        const Tuples moved = runtime::map_tuples(n, n.op, std::move(given), frontier);
        CHECK(firsts(copied) == firsts(moved));
        CHECK(moved.size() == (name[0] == 'D' ? 2u : 4u));
        for (const auto& [k, tile] : moved) {
            const Key from = name[0] == 'R' ? Key{k[1], k[0]} : k;
            CHECK(tile.raw() == before.at(from));              // the same buffer
            CHECK(copied.at(k).raw() != kept.at(from).raw());  // a copy
            CHECK(tile.data<double>()[0] == kept.at(from).data<double>()[0]);
        }
        CHECK(firsts(kept) == firsts(grid()));  // the kept input is untouched
    }
}

TEST_CASE("an aggregate moves a group's only tile out of an input given up", "[local_ops]") {
    const Steps s = steps();
    for (const char* name : {"S", "I"}) {
        INFO(name);
        const Node& n = s.node(name);
        const auto& op = std::get<AggregateOp>(n.op);
        const Tuples kept = grid();
        const Tuples copied = runtime::aggregate_tuples(n, op, kept);
        Tuples given = grid();
        const std::map<Key, const void*> before = buffers(given);
        const Tuples moved = runtime::aggregate_tuples(n, op, std::move(given));
        CHECK(firsts(copied) == firsts(moved));
        if (name[0] == 'S') {  // sums of two tiles: new tiles either way
            CHECK(firsts(moved) == std::map<Key, double>{{Key{0}, 1.0}, {Key{1}, 21.0}});
        } else {  // groups of one tile: passed on
            for (const auto& [k, tile] : moved) CHECK(tile.raw() == before.at(k));
            for (const auto& [k, tile] : copied) CHECK(tile.raw() != kept.at(k).raw());
        }
    }
}

TEST_CASE("a fill moves the present tiles of an input given up and adds tiles of zeros",
          "[local_ops]") {
    const Steps s = steps();
    const Node& a = s.node("A");
    Tuples given = grid();
    given.erase(Key{1, 0});
    const std::map<Key, const void*> before = buffers(given);
    const Tuples filled =
        runtime::fill_tuples(a, std::move(given), [](const Key&) { return true; });
    REQUIRE(filled.size() == 4u);
    for (const auto& [k, buffer] : before) CHECK(filled.at(k).raw() == buffer);
    CHECK(filled.at(Key{1, 0}).data<double>()[0] == 0.0);
    const Tuples kept = grid();
    const Tuples copied = runtime::fill_tuples(a, kept, [](const Key&) { return true; });
    for (const auto& [k, tile] : copied) CHECK(tile.raw() != kept.at(k).raw());
}
