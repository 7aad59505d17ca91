#include "core/tile.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace tra {

namespace {
constexpr std::size_t kAlignment = 64;
constexpr std::size_t kPage = 4096;
// Below this, glibc mostly serves tiles from its heap, whose pages are usually mapped already.
constexpr std::size_t kPrefaultBytes = std::size_t{1} << 22;

// Maps every page of a fresh buffer in one system call. A large tile is a fresh mapping whose
// pages would otherwise fault in one by one when first written, inside a gemm or an MPI receive;
// on the 4096^3 multiply on 2 ranks (2048 tiles) prefaulting took the broadcast from 0.063 to
// 0.036 s and the join from 1.79-2.01 to 1.77-1.78 s (docs/benchmarks.md). Best effort: kernels
// before Linux 5.14 refuse the advice and the pages fault in as before.
void prefault(void* p, std::size_t bytes) {
    const auto first = (reinterpret_cast<std::uintptr_t>(p) + kPage - 1) / kPage * kPage;
    const auto last = (reinterpret_cast<std::uintptr_t>(p) + bytes) / kPage * kPage;
#ifdef MADV_POPULATE_WRITE
    if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE);
#endif
}

// Device memory is zeroed by the device allocator's contract whatever `zero` says.
void* allocate(std::size_t bytes, Residence where, bool zero) {
    if (where == Residence::Device) return device_memory().allocate(bytes);
    std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    if (rounded == 0) rounded = kAlignment;
    void* p = std::aligned_alloc(kAlignment, rounded);
    if (!p)
        throw Error("out of memory allocating a tile of " + std::to_string(bytes) + " bytes", {},
                    ErrorKind::Failed);
    if (rounded >= kPrefaultBytes) prefault(p, rounded);
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
