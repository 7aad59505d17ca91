// Small host tiles' memory (core/small_blocks.hpp): blocks are 64-byte aligned, come back to
// the thread that freed them, by size, at most kPerSize of a size; a zero tile made from a
// reused block is all zeros. Under AddressSanitizer nothing is kept (kPerSize 0), so the reuse
// cases check only what holds there too.
#include <catch2/catch.hpp>
#include <cstdint>
#include <thread>
#include <vector>

#include "core/small_blocks.hpp"
#include "core/tile.hpp"

namespace {

using namespace tra;

bool aligned(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % small_blocks::kAlignment == 0;
}

}  // namespace

TEST_CASE("small blocks: sizes round up to whole 64-byte lines, at least one") {
    CHECK(small_blocks::rounded(0) == 64);
    CHECK(small_blocks::rounded(1) == 64);
    CHECK(small_blocks::rounded(64) == 64);
    CHECK(small_blocks::rounded(65) == 128);
    CHECK(small_blocks::rounded(4096) == 4096);
    CHECK(small_blocks::rounded(4097) == 4160);
}

TEST_CASE("small blocks: a freed block comes back for its size, not another") {
    void* a = small_blocks::acquire(192);
    void* b = small_blocks::acquire(192);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(aligned(a));
    CHECK(aligned(b));
    small_blocks::release(a, 192);
    void* other = small_blocks::acquire(256);  // another size: a new block
    REQUIRE(other);
    if (small_blocks::kPerSize > 0) CHECK(other != a);
    void* again = small_blocks::acquire(192);
    if (small_blocks::kPerSize > 0) CHECK(again == a);
    for (void* p : {b, other, again}) CHECK(aligned(p));
    small_blocks::release(b, 192);
    small_blocks::release(other, 256);
    small_blocks::release(again, 192);
}

TEST_CASE("small blocks: at most kPerSize of a size are kept, larger ones never") {
    const std::size_t n = small_blocks::kPerSize + 3;
    std::vector<void*> blocks;
    for (std::size_t i = 0; i < n; ++i) blocks.push_back(small_blocks::acquire(640));
    for (void* p : blocks) small_blocks::release(p, 640);
    // The first kPerSize released are kept (the last 3 went back to malloc), newest first.
    std::vector<void*> again;
    for (std::size_t i = 0; i < small_blocks::kPerSize; ++i)
        again.push_back(small_blocks::acquire(640));
    for (std::size_t i = 0; i < again.size(); ++i)
        CHECK(again[i] == blocks[small_blocks::kPerSize - 1 - i]);
    for (void* p : again) small_blocks::release(p, 640);
    // Beyond kMaxBytes a block is malloc's alone: still aligned.
    void* big = small_blocks::acquire(small_blocks::kMaxBytes + 64);
    REQUIRE(big);
    CHECK(aligned(big));
    small_blocks::release(big, small_blocks::kMaxBytes + 64);
}

TEST_CASE("small blocks: another thread's frees are its own") {
    void* mine = small_blocks::acquire(320);
    small_blocks::release(mine, 320);
    void* theirs = nullptr;
    std::thread([&] {
        theirs = small_blocks::acquire(320);
        small_blocks::release(theirs, 320);  // kept there, freed when that thread ends
    }).join();
    REQUIRE(theirs);
    if (small_blocks::kPerSize > 0) CHECK(theirs != mine);  // none kept there; mine stays here
    void* back = small_blocks::acquire(320);
    if (small_blocks::kPerSize > 0) CHECK(back == mine);
    small_blocks::release(back, 320);
}

TEST_CASE("small blocks: a zero tile on a reused block holds zeros, a copy its values") {
    const Shape shape{6, 5};  // 240 bytes of f64
    {
        Tile dirty = Tile::uninitialized(DType::F64, shape);
        for (std::int64_t i = 0; i < shape.product(); ++i) dirty.set(i, 7.0 + i);
    }
    const Tile zero(DType::F64, shape);
    for (std::int64_t i = 0; i < shape.product(); ++i) CHECK(zero.get(i) == 0.0);
    Tile values = Tile::uninitialized(DType::F64, shape);
    for (std::int64_t i = 0; i < shape.product(); ++i) values.set(i, 1.5 * i);
    const Tile copy(values);
    for (std::int64_t i = 0; i < shape.product(); ++i) CHECK(copy.get(i) == 1.5 * i);
}
