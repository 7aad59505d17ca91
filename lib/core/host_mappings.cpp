#include "core/host_mappings.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <utility>

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

bool huge_aligned(const char* p) {
    return reinterpret_cast<std::uintptr_t>(p) % kHugePage == 0;
}

// Where a tile of `length` bytes goes in the cached range [begin, end), or nullptr where it does
// not fit. A large tile starts on a 2 MiB boundary (as map_fresh maps it). A smaller one takes the
// range's end where the range starts on a boundary (the start may serve a large tile later),
// its start otherwise.
char* place(char* begin, char* end, std::size_t length) {
    if (static_cast<std::size_t>(end - begin) < length) return nullptr;
    if (length < kLargeTileBytes) return huge_aligned(begin) ? end - length : begin;
    const auto b = reinterpret_cast<std::uintptr_t>(begin);
    char* at = begin + ((b + kHugePage - 1) / kHugePage * kHugePage - b);
    return at <= end && static_cast<std::size_t>(end - at) >= length ? at : nullptr;
}

// Locked: the runtime makes tiles on one thread, but lib/core is a library and a tile may be made
// or dropped on any thread.
//
// The cached mappings are indexed twice: by length (an exact length is found at once) and by
// address (cached mappings that are neighbours serve together). They are kept as the pieces they
// were freed as, not merged on release: a run's tiles come in a few lengths, and a piece of one
// of them serves the next tile of its length as it is. Only a length that no cached mapping has
// looks further, for the best fit (the least left over) among cached mappings and runs of
// neighbouring ones, merges the run, and keeps what is left over cached. Before, a cut never
// healed: an FFNN loop's 200 KiB tiles cut its reserved 1.25 MiB mappings into six pieces and a
// tail in its first iteration, and every later iteration mapped its 25 tiles of 1.25 MiB (32 MB,
// 8,000 page faults) fresh, evicting pieces to make room.
class Cache {
  public:
    void* acquire(std::size_t length, bool zero) {
        std::unique_lock lock(mutex_);
        if (char* p = take(length)) {
            live_ += length;
            lock.unlock();
            if (zero) std::memset(p, 0, length);  // a reused mapping holds an old tile
            return p;
        }
        // No cached mapping fits: map a fresh one (every page a fault), unmapping cached ones
        // first (each a TLB shootdown on every core) as far as the high-water mark asks, the
        // longest first, the last one only as far as needed.
        while (!by_length_.empty() && live_ + cached_ + length > high_water_) {
            const std::size_t need = live_ + cached_ + length - high_water_;
            const auto longest = std::prev(by_length_.end());
            const auto [piece, p] = *longest;
            if (piece <= need) {
                by_address_.erase(p);
                by_length_.erase(longest);
                munmap(p, piece);
                cached_ -= piece;
                evicted_ += piece;
                continue;
            }
            munmap(p + piece - need, need);  // whole pages: every length is
            by_address_.find(p)->second = piece - need;
            auto node = by_length_.extract(longest);  // no allocation: cannot throw
            node.value().first = piece - need;
            by_length_.insert(std::move(node));
            cached_ -= need;
            evicted_ += need;
        }
        ++fresh_;
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
        put(static_cast<char*>(p), length);  // live + cached is unchanged, so within the mark
    }

    std::size_t reserve(const std::vector<std::size_t>& lengths) {
        std::vector<std::size_t> wanted(lengths);
        std::sort(wanted.begin(), wanted.end(), std::greater<>());
        std::vector<std::size_t> missing;
        {
            // The wanted lengths are carved from the cache where they fit, the longest first; the
            // rest of the cache goes, the carved mappings come back, and the mark restarts.
            const std::lock_guard lock(mutex_);
            std::vector<std::pair<char*, std::size_t>> kept;
            kept.reserve(wanted.size());
            for (std::size_t length : wanted) {
                if (char* p = take(length))
                    kept.emplace_back(p, length);
                else
                    missing.push_back(length);
            }
            unmap_cached();
            for (const auto& [p, length] : kept) put(p, length);
            high_water_ = live_ + cached_;
        }
        for (std::size_t length : missing) {
            void* p = map_fresh(length);
            if (!p) break;
            const std::lock_guard lock(mutex_);
            put(static_cast<char*>(p), length);
            note_high_water();
        }
        return usage().cached;
    }

    Usage usage() {
        const std::lock_guard lock(mutex_);
        return {live_, cached_, high_water_, by_address_.size(), fresh_, evicted_};
    }

    void trim() {
        const std::lock_guard lock(mutex_);
        unmap_cached();
        high_water_ = live_;
    }

  private:
    void note_high_water() {
        if (live_ + cached_ > high_water_) high_water_ = live_ + cached_;
    }

    // Caches [p, p + length), or unmaps it where the cache has no memory for its own nodes.
    void put(char* p, std::size_t length) noexcept {
        try {
            by_address_.emplace(p, length);
            try {
                by_length_.emplace(length, p);
            } catch (...) {
                by_address_.erase(p);
                throw;
            }
            cached_ += length;
        } catch (...) {
            munmap(p, length);
        }
    }

    void unmap_cached() noexcept {
        for (const auto& [p, length] : by_address_) munmap(p, length);
        by_address_.clear();
        by_length_.clear();
        cached_ = 0;
    }

    // A cached `length` bytes taken out of the cache (cached_ lowered), or nullptr where none
    // fits: a cached mapping of exactly that length where one is placed right, else the best fit
    // among runs of neighbouring cached mappings (a single one being a run of one).
    char* take(std::size_t length) {
        for (auto it = by_length_.lower_bound({length, nullptr});
             it != by_length_.end() && it->first == length; ++it) {
            char* p = it->second;
            if (place(p, p + length, length) != p) continue;  // large, off a 2 MiB boundary
            by_length_.erase(it);
            by_address_.erase(p);
            cached_ -= length;
            return p;
        }
        using Piece = std::map<char*, std::size_t>::iterator;
        const auto end_of = [](Piece piece) { return piece->first + piece->second; };
        // The best window [first, last) of neighbouring cached mappings, ending at `end`.
        Piece first = by_address_.end(), last = by_address_.end();
        char* end = nullptr;
        std::size_t excess = static_cast<std::size_t>(-1);
        for (Piece run = by_address_.begin(); run != by_address_.end() && excess > 0;) {
            Piece run_end = std::next(run);
            while (run_end != by_address_.end() && run_end->first == end_of(std::prev(run_end)))
                ++run_end;
            // Two pointers: for each start i, the fewest pieces [i, j) that fit the tile. Moving
            // the start on never moves the fitting end back.
            Piece j = run;
            char* e = run->first;
            for (Piece i = run; i != run_end && excess > 0; ++i) {
                while (j != run_end && !place(i->first, e, length)) e = end_of(j++);
                if (!place(i->first, e, length)) break;
                if (const auto over = static_cast<std::size_t>(e - i->first) - length;
                    over < excess) {
                    excess = over;
                    first = i;
                    last = j;
                    end = e;
                }
            }
            run = run_end;
        }
        if (first == by_address_.end()) return nullptr;
        char* begin = first->first;
        for (Piece piece = first; piece != last;) {
            by_length_.erase({piece->second, piece->first});
            piece = by_address_.erase(piece);
        }
        const auto span = static_cast<std::size_t>(end - begin);
        cached_ -= span;
        char* p = place(begin, end, length);
        if (p > begin) put(begin, static_cast<std::size_t>(p - begin));  // what is left over
        if (p + length < end) put(p + length, static_cast<std::size_t>(end - p - length));
        return p;
    }

    std::mutex mutex_;
    std::map<char*, std::size_t> by_address_;            // a cached mapping's start -> its length
    std::set<std::pair<std::size_t, char*>> by_length_;  // (length, start) of each
    std::size_t live_ = 0;
    std::size_t cached_ = 0;
    std::size_t high_water_ = 0;
    std::size_t fresh_ = 0;
    std::size_t evicted_ = 0;
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
