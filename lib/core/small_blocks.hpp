#pragma once
// Small host tiles' memory, kept for reuse by the thread that frees it. A loop of small tiles
// makes and frees thousands of tiles a second; glibc serves 64-byte-aligned blocks
// (aligned_alloc) through its slow memalign path, which also splits and consolidates its free
// lists, and that was a tenth of such a loop's time. Blocks are cached by size (multiples of
// 64 bytes up to kMaxBytes), at most kPerSize of each size per thread, so a thread keeps at most
// kPerSize x (64 + 128 + ... + kMaxBytes) bytes (4 MiB); the rest goes back to malloc.
#include <cstddef>

namespace tra::small_blocks {

inline constexpr std::size_t kAlignment = 64;
inline constexpr std::size_t kMaxBytes = 4096;
#if defined(__SANITIZE_ADDRESS__)
inline constexpr std::size_t kPerSize = 0;  // AddressSanitizer sees every use after a free
#else
inline constexpr std::size_t kPerSize = 32;
#endif

// The size of the block a tile of `bytes` bytes takes: a multiple of kAlignment, at least one.
inline std::size_t rounded(std::size_t bytes) {
    return bytes == 0 ? kAlignment : (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

// A block of `size` bytes (rounded(); at most kMaxBytes), 64-byte aligned: one this thread
// freed before, else a new one; nullptr when out of memory.
void* acquire(std::size_t size);
// Gives back a block from acquire(size): kept for this thread's next acquire, or freed.
void release(void* block, std::size_t size);

}  // namespace tra::small_blocks
