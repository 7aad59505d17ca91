#pragma once
// The memory of host tiles of 64 KiB and more: each one a mapping of its own (on huge pages from
// 4 MiB on), and the mappings of freed tiles kept for the next tile of the same length. On this
// kind of VM a fresh page costs far more than its zeroing (the hypervisor backs it on first touch),
// so a run that frees and allocates tiles of one size reuses its pages instead. The cache never
// lets the process hold more than the most it ever held live (its high-water mark), so the plan's
// predicted peak (live tiles, docs/cost-model.md) still bounds the memory a run takes.
//
// A tile whose length no cached mapping has is carved from a longer one, and cached mappings
// that are neighbours in the address space serve together as one: so the pieces a run cut from
// its reserved mappings (a 1.25 MiB mapping serving six 200 KiB tiles) make the long mapping again
// once they are freed, instead of the cache mapping it fresh (docs/benchmarks.md, "Loops: 100
// SGD steps in one run": 32 MB of fresh pages every iteration of an FFNN loop before).
#include <cstddef>
#include <vector>

namespace tra::host_mappings {

// The length of a host tile's own mapping, or 0 where the tile is small enough for malloc.
std::size_t length_for(std::size_t bytes);

// A mapping of `length` bytes (from length_for), every page mapped (2 MiB-aligned from 4 MiB on);
// zero-filled when `zero` is set. A cached mapping of that length is reused, else the best fit
// among cached mappings and runs of neighbouring ones (a tile of 4 MiB or more only where it
// starts on a 2 MiB boundary); only where none fits is it mapped fresh, cached mappings unmapped
// first as far as the high-water mark asks. nullptr when out of memory.
void* acquire(std::size_t length, bool zero);
// Gives a mapping back: kept for reuse (live plus cached is unchanged, so within the mark).
void release(void* p, std::size_t length) noexcept;

// Makes the cache hold exactly mappings of the given lengths, prefaulted, so the tiles a run is
// going to hold find their pages ready: the run's memory is taken before its first operator (and
// an out-of-memory shows there) instead of page by page inside the computation. The lengths are
// carved from cached mappings where they fit (as acquire would, longest first), the rest of the
// cache is unmapped, what is missing is mapped fresh, and the high-water mark restarts from what
// is held. Returns the bytes cached (less than asked if memory ran out).
std::size_t reserve(const std::vector<std::size_t>& lengths);

struct Usage {
    std::size_t live = 0;        // bytes of mappings held by tiles
    std::size_t cached = 0;      // bytes of mappings kept for reuse
    std::size_t high_water = 0;  // the most live + cached ever held
    std::size_t mappings = 0;    // cached mappings (pieces; neighbours are not merged until used)
    // Since the process started (trim does not reset them):
    std::size_t fresh = 0;    // mappings acquire mapped fresh (every page a fault)
    std::size_t evicted = 0;  // bytes of cached mappings acquire unmapped to make room
};
Usage usage();
// Unmaps every cached mapping and lowers the high-water mark to what is live.
void trim();

}  // namespace tra::host_mappings
