#include "core/small_blocks.hpp"

#include <array>
#include <cstdlib>
#include <vector>

namespace tra::small_blocks {

namespace {

constexpr std::size_t kSizes = kMaxBytes / kAlignment;

// Set when this thread's cache has ended (thread exit): a tile freed after that (one held by an
// object destroyed later) goes straight back to malloc. A bool needs no destructor, so it can
// be read then.
thread_local bool cache_ended = false;

// This thread's free blocks by size; freed for good when the thread ends.
struct Cache {
    std::array<std::vector<void*>, kSizes> free;
    ~Cache() {
        cache_ended = true;
        for (auto& blocks : free)
            for (void* b : blocks) std::free(b);
    }
};

std::vector<void*>& blocks_of(std::size_t size) {
    thread_local Cache cache;
    return cache.free[size / kAlignment - 1];
}

}  // namespace

void* acquire(std::size_t size) {
    if (size <= kMaxBytes && !cache_ended) {
        auto& blocks = blocks_of(size);
        if (!blocks.empty()) {
            void* b = blocks.back();
            blocks.pop_back();
            return b;
        }
    }
    return std::aligned_alloc(kAlignment, size);
}

void release(void* block, std::size_t size) {
    if (size <= kMaxBytes && !cache_ended) {
        auto& blocks = blocks_of(size);
        if (blocks.size() < kPerSize) {
            if (blocks.capacity() == 0) blocks.reserve(kPerSize);
            blocks.push_back(block);
            return;
        }
    }
    std::free(block);
}

}  // namespace tra::small_blocks
