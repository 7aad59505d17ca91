// Dense relations through the logical stage: ProgramBuilder computes the keys of a join,
// aggregation, tiling, concatenation or permuting rekey of boxes as a box, equal to the keys
// enumerated one by one (written out here by brute force), and enumerates only where holes may
// appear, under the tuple limit. Validate's scope (enumerated_relations) accepts dense relations
// of any tile count; plan's (every_relation) refuses them past the limit.
#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernels/kernel.hpp"
#include "program_fixtures.hpp"
#include "tra/program_builder.hpp"

using namespace tra;
using namespace tra::testing;
using kernels::KernelCall;

namespace {

// Every key below `f`, one by one.
std::vector<Key> all_keys(const Frontier& f) {
    std::vector<Key> out;
    if (f.product() == 0) return out;
    Key k(f.size());
    do out.push_back(k);
    while (next_in_box(k, f));
    return out;
}

// The join of `left` and `right` on the given positions, by brute force.
KeySet joined(const std::vector<Key>& left, const std::vector<Key>& right, const KeyPositions& lp,
              const KeyPositions& rp) {
    KeySet out;
    for (const Key& l : left)
        for (const Key& r : right) {
            bool match = true;
            for (std::size_t i = 0; i < lp.size(); ++i) match = match && l[lp[i]] == r[rp[i]];
            if (!match) continue;
            Key k = l;
            for (std::size_t i = 0; i < r.size(); ++i)
                if (std::find(rp.begin(), rp.end(), i) == rp.end()) k.push_back(r[i]);
            out.insert(k);
        }
    return out;
}

std::string message_of(const std::function<void()>& step) {
    try {
        step();
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("dense keys: a join of boxes is the box of its matches", "[program][dense]") {
    ProgramBuilder b("p", DType::F64);
    // A: frontier [3, 4, 1]; B: frontier [2, 5, 3]; joined on A[1] = B[2] (4 against 3 values).
    b.add_input("A", Shape{6, 8, 2}, Shape{2, 2, 2}, DType::F64, generated(), at("A"));
    b.add_input("B", Shape{4, 10, 6}, Shape{2, 2, 2}, DType::F64, generated(), at("B"));
    const Node ab = b.node(b.add_join("AB", "A", "B", {1}, {2}, KernelCall("mul"), at("AB")));
    CHECK(ab.keys.held_as_box());
    CHECK(ab.frontier == Frontier{3, 3, 1, 2, 5});
    CHECK(ab.keys == joined(all_keys({3, 4, 1}), all_keys({2, 5, 3}), {1}, {2}));
    const Node outer = b.node(b.add_join("O", "A", "B", {}, {}, KernelCall("mul"), at("O")));
    CHECK(outer.keys.held_as_box());
    CHECK(outer.tuples() == 12u * 30u);
    CHECK(outer.keys == joined(all_keys({3, 4, 1}), all_keys({2, 5, 3}), {}, {}));
}

TEST_CASE("dense keys: a join with holes enumerates only the matching part of a box",
          "[program][dense]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("A", Shape{8, 8}, Shape{2, 2}, DType::F64, generated(), at("A"));
    b.add_input("B", Shape{8, 6}, Shape{2, 2}, DType::F64, generated(), at("B"));
    const Node d = b.node(b.add_filter("D", "A", "k0 == k1", at("D")));
    CHECK_FALSE(d.keys.held_as_box());
    const std::vector<Key> diagonal(d.keys.begin(), d.keys.end());
    const Node db = b.node(b.add_join("DB", "D", "B", {1}, {0}, KernelCall("mul"), at("DB")));
    CHECK_FALSE(db.keys.held_as_box());
    CHECK(db.keys == joined(diagonal, all_keys({4, 3}), {1}, {0}));
    const Node bd = b.node(b.add_join("BD", "B", "D", {0}, {1}, KernelCall("mul"), at("BD")));
    CHECK(bd.keys == joined(all_keys({4, 3}), diagonal, {0}, {1}));
}

TEST_CASE("dense keys: a join with holes stops enumerating at the limit", "[program][dense]") {
    ProgramBuilder b("p", DType::F64);
    b.set_max_tuples(20);
    b.add_input("A", Shape{8, 8}, Shape{2, 2}, DType::F64, generated(), at("A"));
    b.add_input("B", Shape{8, 6}, Shape{2, 2}, DType::F64, generated(), at("B"));
    b.add_filter("D", "A", "k0 == k1", at("D"));
    // 4 diagonal keys against 12: 48 tuples, known only to pass 20.
    CHECK(message_of([&] { b.add_join("DB", "D", "B", {}, {}, KernelCall("mul"), at("DB")); }) ==
          "t.yaml:1:1: DB.join: DB has more tuples (tiles) than the limit of 20 (--max-tuples or "
          "TRA_MAX_TUPLES); use larger tiles");
}

TEST_CASE("dense keys: aggregate, tile, concat and permuting rekey keep boxes",
          "[program][dense]") {
    ProgramBuilder b("p", DType::F64);
    b.add_input("A", Shape{6, 8, 4}, Shape{2, 2, 2}, DType::F64, generated(), at("A"));
    const Node g = b.node(b.add_aggregate("G", "A", {2, 0}, KernelCall("add"), at("G")));
    CHECK(g.keys.held_as_box());
    CHECK(g.frontier == Frontier{2, 3});
    const Node t = b.node(b.add_tile("T", "A", 1, 1, at("T")));
    CHECK(t.keys.held_as_box());
    CHECK(t.frontier == Frontier{3, 4, 2, 2});
    const Node c = b.node(b.add_concat("C", "T", 3, 1, at("C")));
    CHECK(c.keys.held_as_box());
    CHECK(c.frontier == Frontier{3, 4, 2});
    CHECK(c.type.bound == Shape{2, 2, 2});
    for (const std::string key : {"(k2, k0, k1)", "(i, j, l) -> (l, i, j)"}) {
        const Node r = b.node(b.add_rekey("R" + std::to_string(key.size()), "A", key, at("R")));
        CHECK(r.keys.held_as_box());
        CHECK(r.frontier == Frontier{2, 3, 4});
        KeySet moved;
        for (const Key& k : all_keys({3, 4, 2})) moved.insert(Key{k[2], k[0], k[1]});
        CHECK(r.keys == moved);
    }
    // Arithmetic may leave holes: enumerated, and listed while it does.
    const Node shifted = b.node(b.add_rekey("S", "A", "(k0 * 2, k1, k2)", at("S")));
    CHECK_FALSE(shifted.keys.held_as_box());
    CHECK(shifted.tuples() == 24);
    CHECK(shifted.frontier == Frontier{5, 4, 2});
}

TEST_CASE(
    "dense keys: validate's scope accepts dense relations past the limit, refuses "
    "enumerating them",
    "[program][dense][limits]") {
    ProgramBuilder b("p", DType::F64);
    b.set_max_tuples(100, TupleLimitScope::enumerated_relations);
    // 1e8 tiles, and a 1e4 x 1e4 outer product: boxes, never enumerated.
    const Node a = b.node(
        b.add_input("A", Shape{100000, 100000}, Shape{10, 10}, DType::F64, generated(), at("A")));
    CHECK(a.tuples() == 100000000u);
    b.add_transform("B", "A", KernelCall("relu"), at("B"));
    b.add_aggregate("S", "A", {0}, KernelCall("add"), at("S"));
    const Node outer = b.node(b.add_join("O", "S", "S", {}, {}, KernelCall("mul"), at("O")));
    CHECK(outer.tuples() == 100000000u);
    b.add_rekey("T", "A", "(k1, k0)", at("T"));
    b.add_output("B", "b.h5", "/B", at("out"));
    // A filter or an arithmetic rekey must enumerate A: refused, naming A.
    CHECK(message_of([&] { b.add_filter("F", "A", "k0 == k1", at("F")); }) ==
          "t.yaml:1:1: F.where: A has more tuples (tiles) (100000000) than the limit of 100 "
          "(--max-tuples or TRA_MAX_TUPLES); use larger tiles");
    CHECK(message_of([&] {
              b.add_rekey("R", "A", "(k0 + 1, k1)", at("R"));
          }).find("A has more tuples (tiles) (100000000) than the limit of 100") !=
          std::string::npos);
    // A box whose tuples or bytes pass 64 bits is refused whatever the scope.
    CHECK(message_of([&] {
              b.add_input("H", Shape{std::int64_t{1} << 32, std::int64_t{1} << 32}, Shape{1, 1},
                          DType::F64, generated(), at("H"));
          }).find("H has more tuples (tiles) than the limit of 100") != std::string::npos);
    CHECK(message_of([&] {
              b.add_input("Y", Shape{std::int64_t{1} << 31, std::int64_t{1} << 31}, Shape{1, 1},
                          DType::F64, generated(), at("Y"));
          }).find("Y has more bytes than 64 bits count") != std::string::npos);
}

TEST_CASE("dense keys: plan's scope refuses dense relations past the limit",
          "[program][dense][limits]") {
    ProgramBuilder b("p", DType::F64);
    b.set_max_tuples(100);
    b.add_input("A", Shape{100, 100}, Shape{10, 10}, DType::F64, generated(), at("A"));
    b.add_input("B", Shape{20, 10}, Shape{10, 10}, DType::F64, generated(), at("B"));
    CHECK(message_of([&] {
              b.add_join("O", "A", "B", {}, {}, KernelCall("mul"), at("O"));
          }).find("O has more tuples (tiles) (200) than the limit of 100") != std::string::npos);
    CHECK(message_of([&] {
              b.add_input("C", Shape{1000, 1000}, Shape{10, 10}, DType::F64, generated(), at("C"));
          }).find("C has more tuples (tiles) (10000) than the limit of 100") != std::string::npos);
}
