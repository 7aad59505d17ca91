#pragma once
// A tile: one dense array of a tensor relation, row-major, 64-byte aligned so BLAS and vector
// loops get aligned rows at the start.
#include <cstddef>
#include <memory>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/index_vector.hpp"

namespace tra {

class Tile {
public:
    Tile() = default;
    // A zero-filled tile of the given element type and bound.
    Tile(DType dtype, Shape shape);
    Tile(const Tile& other);
    Tile& operator=(const Tile& other);
    Tile(Tile&&) noexcept = default;
    Tile& operator=(Tile&&) noexcept = default;

    DType dtype() const { return dtype_; }
    const Shape& shape() const { return shape_; }
    std::size_t rank() const { return shape_.size(); }
    std::int64_t elements() const { return shape_.product(); }
    std::size_t bytes() const { return static_cast<std::size_t>(elements()) * size_of(dtype_); }

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
    void* raw() { return buffer_.get(); }
    const void* raw() const { return buffer_.get(); }

    // Element access through double, for tests and non-hot paths.
    double get(std::int64_t flat) const;
    void set(std::int64_t flat, double value);

private:
    struct FreeDeleter {
        void operator()(void* p) const;
    };
    template <class T>
    void check() const {
        if (dtype_of<T>() != dtype_) throw Error("tile holds " + name_of(dtype_) + " elements");
    }

    DType dtype_ = DType::F64;
    Shape shape_;
    std::unique_ptr<void, FreeDeleter> buffer_;
};

}  // namespace tra
