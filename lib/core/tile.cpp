#include "core/tile.hpp"

#include <cstdlib>
#include <cstring>

#include "core/host_mappings.hpp"
#include "core/small_blocks.hpp"

namespace tra {

namespace {

// Zero-filled when `zero`, on either side; an uninitialized tile skips the fill.
void* allocate(std::size_t bytes, Residence where, bool zero) {
    if (where == Residence::Device) return device_memory().allocate(bytes, zero);
    void* p = nullptr;
    if (const std::size_t length = host_mappings::length_for(bytes)) {
        p = host_mappings::acquire(length, zero);
    } else {
        const std::size_t rounded = small_blocks::rounded(bytes);
        p = small_blocks::acquire(rounded);
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
        host_mappings::release(p, mapped);
    else
        small_blocks::release(p, malloced);
}

Tile::Tile(DType dtype, Shape shape, Residence residence)
    : Tile(dtype, std::move(shape), residence, Fill::Zero) {}

Tile::Tile(DType dtype, Shape shape, Residence residence, Fill fill)
    : dtype_(dtype),
      shape_(std::move(shape)),
      buffer_(allocate(bytes(), residence, fill == Fill::Zero),
              FreeDeleter{residence,
                          residence == Residence::Host ? host_mappings::length_for(bytes()) : 0,
                          small_blocks::rounded(bytes())}) {}

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
