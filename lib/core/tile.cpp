#include "core/tile.hpp"

#include <cstdlib>
#include <cstring>

namespace tra {

namespace {
constexpr std::size_t kAlignment = 64;

void* allocate_zeroed(std::size_t bytes) {
    std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    if (rounded == 0) rounded = kAlignment;
    void* p = std::aligned_alloc(kAlignment, rounded);
    if (!p) throw Error("out of memory allocating a tile of " + std::to_string(bytes) + " bytes",
                        {}, ErrorKind::Failed);
    std::memset(p, 0, rounded);
    return p;
}
}  // namespace

void Tile::FreeDeleter::operator()(void* p) const { std::free(p); }

Tile::Tile(DType dtype, Shape shape)
    : dtype_(dtype), shape_(std::move(shape)), buffer_(allocate_zeroed(bytes())) {}

Tile::Tile(const Tile& other)
    : dtype_(other.dtype_), shape_(other.shape_), buffer_(allocate_zeroed(other.bytes())) {
    std::memcpy(buffer_.get(), other.buffer_.get(), bytes());
}

Tile& Tile::operator=(const Tile& other) {
    if (this != &other) *this = Tile(other);
    return *this;
}

double Tile::get(std::int64_t flat) const {
    return visit_dtype(dtype_, [&](auto t) -> double {
        return static_cast<double>(data<decltype(t)>()[flat]);
    });
}

void Tile::set(std::int64_t flat, double value) {
    visit_dtype(dtype_, [&](auto t) {
        using T = decltype(t);
        data<T>()[flat] = static_cast<T>(value);
    });
}

}  // namespace tra
