#pragma once
// A tile: one dense array of a tensor relation, row-major, 64-byte aligned so BLAS and vector
// loops get aligned rows at the start. Its buffer lives in host memory or, on GPU runs, in device
// memory (core/device_memory.hpp); host accessors refuse device tiles, so a CPU kernel can never
// read a device pointer.
#include <cstddef>
#include <memory>

#include "core/device_memory.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/index_vector.hpp"

namespace tra {

class Tile {
  public:
    Tile() = default;
    // A zero-filled tile of the given element type and bound, in host or device memory.
    Tile(DType dtype, Shape shape, Residence residence = Residence::Host);
    // A tile whose elements are left unset, for writers that overwrite every element (a gemm
    // with beta = 0, a copy, a received message): zeroing first would touch the memory twice.
    static Tile uninitialized(DType dtype, Shape shape, Residence residence = Residence::Host);
    Tile(const Tile& other);
    Tile& operator=(const Tile& other);
    Tile(Tile&&) noexcept = default;
    Tile& operator=(Tile&&) noexcept = default;

    DType dtype() const { return dtype_; }
    const Shape& shape() const { return shape_; }
    std::size_t rank() const { return shape_.size(); }
    std::int64_t elements() const { return shape_.product(); }
    std::size_t bytes() const { return static_cast<std::size_t>(elements()) * size_of(dtype_); }
    Residence residence() const { return buffer_.get_deleter().residence; }
    bool on_device() const { return residence() == Residence::Device; }
    // A copy of this tile in `where` (a plain copy when it already lives there).
    Tile to(Residence where) const;

    // Host memory only; throws Error (Failed) for a tile on the device.
    template <class T>
    T* data() {
        check<T>();
        return static_cast<T*>(raw());
    }
    template <class T>
    const T* data() const {
        check<T>();
        return static_cast<const T*>(raw());
    }
    void* raw() { return host_buffer(); }
    const void* raw() const { return host_buffer(); }

    // Device memory only; throws Error (Failed) for a tile on the host.
    template <class T>
    T* device_data() {
        check<T>();
        return static_cast<T*>(device_raw());
    }
    template <class T>
    const T* device_data() const {
        check<T>();
        return static_cast<const T*>(device_raw());
    }
    void* device_raw() const;
    // The buffer wherever it lives, for copies that are told the residence (DeviceMemory::copy).
    void* address() const { return buffer_.get(); }

    // Element access through double, for tests and non-hot paths.
    double get(std::int64_t flat) const;
    void set(std::int64_t flat, double value);

  private:
    enum class Fill { Zero, None };
    Tile(DType dtype, Shape shape, Residence residence, Fill fill);

    struct FreeDeleter {
        // Constructors, not a member initializer or default argument: unique_ptr needs the
        // deleter default constructible while Tile is still incomplete.
        FreeDeleter() : residence(Residence::Host), mapped(0), malloced(0) {}
        FreeDeleter(Residence where, std::size_t mapping, std::size_t block)
            : residence(where), mapped(mapping), malloced(block) {}
        Residence residence;
        std::size_t mapped;    // a large host tile's own mapping (host_mappings); 0: malloc's
        std::size_t malloced;  // else its block's size (small_blocks::rounded)
        void operator()(void* p) const;
    };
    void* host_buffer() const;
    template <class T>
    void check() const {
        if (dtype_of<T>() != dtype_) throw Error("tile holds " + name_of(dtype_) + " elements");
    }

    DType dtype_ = DType::F64;
    Shape shape_;
    std::unique_ptr<void, FreeDeleter> buffer_;
};

}  // namespace tra
