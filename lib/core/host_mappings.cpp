#include "core/host_mappings.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

namespace tra::host_mappings {

namespace {
constexpr std::size_t kPage = 4096;
constexpr std::size_t kHugePage = std::size_t{1} << 21;
// Host tiles from this size on get a mapping of their own (below, glibc's heap serves them).
// Mid-size tiles too: from glibc, a 400 x 400 f64 tile (1.25 MiB) was a fresh mmap each time,
// and its page faults took 70% of a relu over such tiles (docs/benchmarks.md, "Predicted vs
// measured"); from the cache its pages are reserved before the first operator and reused.
constexpr std::size_t kMappedTileBytes = std::size_t{1} << 16;
// From this size on a mapping is aligned for huge pages (it spans two 2 MiB blocks or more).
constexpr std::size_t kLargeTileBytes = std::size_t{1} << 22;

// Maps every page, then writes one byte of each. The advice alone maps the guest's pages in one
// system call, but on this VM (Firecracker) the host backs a page only when it is first
// written: after the advice alone, the first pass over 60 MB of tiles took 0.12 s, later passes
// 0.005 s; with the writes, the reservation took 0.18 s and the first pass 0.005 s (C test of
// 2026-11-26, docs/runtime.md "Memory"). On bare metal the writes cost one cache miss a page.
void populate(void* p, std::size_t length) {
#ifdef MADV_POPULATE_WRITE
    madvise(p, length, MADV_POPULATE_WRITE);
#endif
    // The pages are fresh (zero), so writing a zero changes nothing but who backs them.
    auto* bytes = static_cast<volatile unsigned char*>(p);
    for (std::size_t at = 0; at < length; at += kPage) bytes[at] = 0;
}

// A mapping that starts on a 2 MiB boundary and asks for transparent huge pages over its whole
// 2 MiB blocks (the tail stays on 4 KiB pages, so no tile holds more memory than its bytes),
// then maps every page in one system call. On 4 KiB pages, the first gemm pass over fresh tiles
// ran 10% slower than later passes (page walks in this VM) and unmapping a consumed 16 MiB
// input took 1.7 ms inside the join; on huge pages both costs go (docs/runtime.md, "Memory").
// Its own mapping, not glibc's: glibc serves a freed size from its heap next time (its mmap
// threshold rises) and trims the heap again, so pages were zeroed anew. Without prefaulting,
// pages fault in one by one inside a gemm or an MPI receive. Best effort: a kernel without THP
// or MADV_POPULATE_WRITE (Linux < 5.14) refuses the advice. A mapping under kLargeTileBytes is
// not aligned (huge pages would not fit it), so neighbouring ones merge into one kernel area
// instead of counting against the process's limit of areas (vm.max_map_count) one by one.
void* map_fresh(std::size_t length) {
    if (length < kLargeTileBytes) {
        void* p = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return nullptr;
        populate(p, length);
        return p;
    }
    const std::size_t span = length + kHugePage;
    void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    const auto start = reinterpret_cast<std::uintptr_t>(raw);
    const auto first = (start + kHugePage - 1) / kHugePage * kHugePage;
    if (first > start) munmap(raw, first - start);
    if (start + span > first + length)
        munmap(reinterpret_cast<void*>(first + length), start + span - first - length);
    void* p = reinterpret_cast<void*>(first);
#ifdef MADV_HUGEPAGE
    madvise(p, length / kHugePage * kHugePage, MADV_HUGEPAGE);  // large tiles span 2+ blocks
#endif
    populate(p, length);
    return p;
}

// Locked: the runtime makes tiles on one thread, but lib/core is a library and a tile may be made
// or dropped on any thread.
class Cache {
  public:
    void* acquire(std::size_t length, bool zero) {
        std::unique_lock lock(mutex_);
        if (auto it = free_.find(length); it != free_.end()) {
            void* p = it->second;
            free_.erase(it);
            cached_ -= length;
            live_ += length;
            lock.unlock();
            if (zero) std::memset(p, 0, length);  // a reused mapping holds an old tile
            return p;
        }
        // No room for a fresh mapping within the high-water mark: a longer cached mapping serves
        // with its head (pages already mapped) and stays cached as its tail, cheaper than evicting
        // (each unmapping a TLB shootdown on every core) to map a fresh one (every page a fault).
        // A ffnn step reading its 483 KB input tiles into a cache reserved for the 2.4 MB tiles
        // of its busiest operator mapped 19 of them fresh by evicting; from heads and tails, none.
        const bool room = live_ + cached_ + length <= high_water_;
        if (auto it = free_.lower_bound(length); !room && it != free_.end()) {
            auto [longer, p] = *it;
            free_.erase(it);
            cached_ -= length;
            live_ += length;
            try {
                free_.emplace(longer - length, static_cast<char*>(p) + length);
            } catch (...) {  // no memory for the cache's own node: give the tail back instead
                munmap(static_cast<char*>(p) + length, longer - length);
                cached_ -= longer - length;
            }
            lock.unlock();
            if (zero) std::memset(p, 0, length);
            return p;
        }
        // Room for a fresh mapping within the high-water mark, or past it only by what the live
        // tiles need: cached mappings of other lengths go first.
        while (!free_.empty() && live_ + cached_ + length > high_water_) {
            auto victim = std::prev(free_.end());  // the longest
            munmap(victim->second, victim->first);
            cached_ -= victim->first;
            free_.erase(victim);
        }
        lock.unlock();
        void* p = map_fresh(length);  // zero, being fresh
        if (!p) {
            trim();  // out of memory: what the cache holds may make the room
            p = map_fresh(length);
            if (!p) return nullptr;
        }
        lock.lock();
        live_ += length;
        note_high_water();
        return p;
    }

    void release(void* p, std::size_t length) noexcept {
        const std::lock_guard lock(mutex_);
        live_ -= length;
        try {
            free_.emplace(length, p);  // live + cached is unchanged, so within the mark
            cached_ += length;
        } catch (...) {  // no memory for the cache's own node: give the mapping back instead
            munmap(p, length);
        }
    }

    std::size_t reserve(const std::vector<std::size_t>& lengths) {
        std::multiset<std::size_t> wanted(lengths.begin(), lengths.end());
        {
            // Cached mappings of a wanted length stay; the others go, and the mark restarts.
            const std::lock_guard lock(mutex_);
            for (auto it = free_.begin(); it != free_.end();) {
                if (auto w = wanted.find(it->first); w != wanted.end()) {
                    wanted.erase(w);
                    ++it;
                    continue;
                }
                munmap(it->second, it->first);
                cached_ -= it->first;
                it = free_.erase(it);
            }
            high_water_ = live_ + cached_;
        }
        for (std::size_t length : wanted) {
            void* p = map_fresh(length);
            if (!p) break;
            const std::lock_guard lock(mutex_);
            free_.emplace(length, p);
            cached_ += length;
            note_high_water();
        }
        return usage().cached;
    }

    Usage usage() {
        const std::lock_guard lock(mutex_);
        return {live_, cached_, high_water_};
    }

    void trim() {
        const std::lock_guard lock(mutex_);
        for (const auto& [length, p] : free_) munmap(p, length);
        free_.clear();
        cached_ = 0;
        high_water_ = live_;
    }

  private:
    void note_high_water() {
        if (live_ + cached_ > high_water_) high_water_ = live_ + cached_;
    }

    std::mutex mutex_;
    std::multimap<std::size_t, void*> free_;  // length -> a cached mapping of that length
    std::size_t live_ = 0;
    std::size_t cached_ = 0;
    std::size_t high_water_ = 0;
};

// Never destroyed: tiles held by static objects may be freed after main returns.
Cache& cache() {
    static Cache* instance = new Cache;
    return *instance;
}
}  // namespace

std::size_t length_for(std::size_t bytes) {
    if (bytes < kMappedTileBytes) return 0;
    return (bytes + kPage - 1) / kPage * kPage;
}

void* acquire(std::size_t length, bool zero) {
    return cache().acquire(length, zero);
}

void release(void* p, std::size_t length) noexcept {
    cache().release(p, length);
}

std::size_t reserve(const std::vector<std::size_t>& lengths) {
    return cache().reserve(lengths);
}

Usage usage() {
    return cache().usage();
}

void trim() {
    cache().trim();
}

}  // namespace tra::host_mappings
