#include "core/tile.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace tra {

namespace {
constexpr std::size_t kAlignment = 64;
constexpr std::size_t kPage = 4096;
constexpr std::size_t kHugePage = std::size_t{1} << 21;
// Host tiles from this size on get a mapping of their own (below, glibc's heap serves them).
constexpr std::size_t kLargeTileBytes = std::size_t{1} << 22;

// The length of a host tile's own mapping, or 0 where glibc allocates it.
std::size_t mapping_bytes(std::size_t bytes, Residence where) {
    if (where == Residence::Device || bytes < kLargeTileBytes) return 0;
    return (bytes + kPage - 1) / kPage * kPage;
}

// A large tile is a mapping of its own that starts on a 2 MiB boundary and asks for transparent
// huge pages over its whole 2 MiB blocks (the tail stays on 4 KiB pages, so no tile holds more
// memory than its bytes), then maps every page in one system call. On 4 KiB pages, the first
// gemm pass over fresh tiles ran 10% slower than later passes (page walks in this VM) and
// unmapping a consumed 16 MiB input took 1.7 ms inside the join; on huge pages both costs go
// (docs/runtime.md, "Memory"). Its own mapping, not glibc's: glibc serves a freed size from its
// heap next time (its mmap threshold rises) and trims the heap again, so pages were zeroed
// anew. Without prefaulting, pages fault in one by one inside a gemm or an MPI receive. Best
// effort: a kernel without THP or MADV_POPULATE_WRITE (Linux < 5.14) refuses the advice.
void* map_large(std::size_t length) {
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
#ifdef MADV_POPULATE_WRITE
    madvise(p, length, MADV_POPULATE_WRITE);
#endif
    return p;
}

// Device memory is zeroed by the device allocator's contract whatever `zero` says, and a fresh
// mapping is zero already.
void* allocate(std::size_t bytes, Residence where, bool zero) {
    if (where == Residence::Device) return device_memory().allocate(bytes);
    void* p = nullptr;
    if (const std::size_t length = mapping_bytes(bytes, where)) {
        p = map_large(length);
    } else {
        std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
        if (rounded == 0) rounded = kAlignment;
        p = std::aligned_alloc(kAlignment, rounded);
        if (p && zero) std::memset(p, 0, rounded);
    }
    if (!p)
        throw Error("out of memory allocating a tile of " + std::to_string(bytes) + " bytes", {},
                    ErrorKind::Failed);
    return p;
}
}  // namespace

void Tile::FreeDeleter::operator()(void* p) const {
    if (residence == Residence::Device)
        device_memory().release(p);
    else if (mapped > 0)
        munmap(p, mapped);
    else
        std::free(p);
}

Tile::Tile(DType dtype, Shape shape, Residence residence)
    : Tile(dtype, std::move(shape), residence, Fill::Zero) {}

Tile::Tile(DType dtype, Shape shape, Residence residence, Fill fill)
    : dtype_(dtype),
      shape_(std::move(shape)),
      buffer_(allocate(bytes(), residence, fill == Fill::Zero),
              FreeDeleter{residence, mapping_bytes(bytes(), residence)}) {}

Tile Tile::uninitialized(DType dtype, Shape shape, Residence residence) {
    return Tile(dtype, std::move(shape), residence, Fill::None);
}

Tile::Tile(const Tile& other) : Tile(other.to(other.residence())) {}

Tile Tile::to(Residence where) const {
    Tile out = uninitialized(dtype_, shape_, where);  // every byte is copied below
    if (bytes() == 0) return out;
    if (where == Residence::Host && residence() == Residence::Host)
        std::memcpy(out.buffer_.get(), buffer_.get(), bytes());
    else
        device_memory().copy(out.buffer_.get(), buffer_.get(), bytes());
    return out;
}

void* Tile::host_buffer() const {
    if (on_device())
        throw Error("a tile of " + shape_.str() + " lives on the GPU; host code must copy it first",
                    {}, ErrorKind::Failed);
    return buffer_.get();
}

void* Tile::device_raw() const {
    if (!on_device())
        throw Error("a tile of " + shape_.str() + " lives in host memory, not on the GPU", {},
                    ErrorKind::Failed);
    return buffer_.get();
}

Tile& Tile::operator=(const Tile& other) {
    if (this != &other) *this = Tile(other);
    return *this;
}

double Tile::get(std::int64_t flat) const {
    return visit_dtype(
        dtype_, [&](auto t) -> double { return static_cast<double>(data<decltype(t)>()[flat]); });
}

void Tile::set(std::int64_t flat, double value) {
    visit_dtype(dtype_, [&](auto t) {
        using T = decltype(t);
        data<T>()[flat] = static_cast<T>(value);
    });
}

}  // namespace tra
