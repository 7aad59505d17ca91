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
// Below this, glibc mostly serves tiles from its heap, whose pages are usually mapped already.
constexpr std::size_t kLargeTileBytes = std::size_t{1} << 22;

// A large tile starts on a 2 MiB boundary and asks for transparent huge pages over its whole 2 MiB
// blocks (the tail stays on 4 KiB pages, so no tile holds more memory than its bytes), then maps
// every page in one system call. On 4 KiB pages, the first gemm pass over fresh tiles ran 10%
// slower than later passes (page walks in this VM) and unmapping a consumed 16 MiB input took 1.7
// ms inside the join; on huge pages both costs go (32 gemms of 1024x2048x1024 over fresh tiles
// freed after use: 1.80 -> 1.55 s; docs/runtime.md, "Memory"). Without prefaulting, pages would
// fault in one by one inside a gemm or an MPI receive. Best effort: a kernel without THP or
// MADV_POPULATE_WRITE (Linux < 5.14) refuses the advice and pages fault in as before.
void* allocate_large(std::size_t bytes) {
    const std::size_t pages = (bytes + kPage - 1) / kPage * kPage;
    void* p = std::aligned_alloc(kHugePage, pages);
    if (!p) return nullptr;
#ifdef MADV_HUGEPAGE
    if (bytes >= kHugePage) madvise(p, bytes / kHugePage * kHugePage, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
    madvise(p, pages, MADV_POPULATE_WRITE);
#endif
    return p;
}

// Device memory is zeroed by the device allocator's contract whatever `zero` says.
void* allocate(std::size_t bytes, Residence where, bool zero) {
    if (where == Residence::Device) return device_memory().allocate(bytes);
    std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    if (rounded == 0) rounded = kAlignment;
    void* p = rounded >= kLargeTileBytes ? allocate_large(rounded)
                                         : std::aligned_alloc(kAlignment, rounded);
    if (!p)
        throw Error("out of memory allocating a tile of " + std::to_string(bytes) + " bytes", {},
                    ErrorKind::Failed);
    if (zero) std::memset(p, 0, rounded);
    return p;
}
}  // namespace

void Tile::FreeDeleter::operator()(void* p) const {
    if (residence == Residence::Device)
        device_memory().release(p);
    else
        std::free(p);
}

Tile::Tile(DType dtype, Shape shape, Residence residence)
    : Tile(dtype, std::move(shape), residence, Fill::Zero) {}

Tile::Tile(DType dtype, Shape shape, Residence residence, Fill fill)
    : dtype_(dtype),
      shape_(std::move(shape)),
      buffer_(allocate(bytes(), residence, fill == Fill::Zero), FreeDeleter{residence}) {}

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
