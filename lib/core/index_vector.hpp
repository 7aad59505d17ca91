#pragma once
// Keys, shapes and frontiers are all short vectors of integers, but they mean different things;
// the tag makes them distinct types that share one implementation.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace tra {

template <class Tag>
class IndexVector {
public:
    using value_type = std::int64_t;

    IndexVector() = default;
    IndexVector(std::initializer_list<std::int64_t> v) : v_(v) {}
    explicit IndexVector(std::vector<std::int64_t> v) : v_(std::move(v)) {}
    explicit IndexVector(std::size_t n, std::int64_t fill = 0) : v_(n, fill) {}

    std::size_t size() const { return v_.size(); }
    bool empty() const { return v_.empty(); }
    std::int64_t& operator[](std::size_t i) { return v_[i]; }
    std::int64_t operator[](std::size_t i) const { return v_[i]; }
    auto begin() const { return v_.begin(); }
    auto end() const { return v_.end(); }
    auto begin() { return v_.begin(); }
    auto end() { return v_.end(); }
    void push_back(std::int64_t x) { v_.push_back(x); }
    const std::vector<std::int64_t>& values() const { return v_; }

    // Product of the entries (1 for an empty vector): elements of a shape, tuples of a box.
    std::int64_t product() const {
        std::int64_t p = 1;
        for (auto x : v_) p *= x;
        return p;
    }

    // "(1, 2)" for keys, "[1, 2]" for shapes and frontiers.
    std::string str() const {
        std::string s(1, Tag::open);
        for (std::size_t i = 0; i < v_.size(); ++i) s += (i ? ", " : "") + std::to_string(v_[i]);
        return s + Tag::close;
    }

    friend bool operator==(const IndexVector& a, const IndexVector& b) { return a.v_ == b.v_; }
    friend bool operator!=(const IndexVector& a, const IndexVector& b) { return a.v_ != b.v_; }
    friend bool operator<(const IndexVector& a, const IndexVector& b) { return a.v_ < b.v_; }

private:
    std::vector<std::int64_t> v_;
};

struct KeyTag {
    static constexpr char open = '(', close = ')';
};
struct ShapeTag {
    static constexpr char open = '[', close = ']';
};
struct FrontierTag {
    static constexpr char open = '[', close = ']';
};

// A tuple's key in a tensor relation: k non-negative integers.
using Key = IndexVector<KeyTag>;
// Extents of an array (a tile's bound b, or a whole tensor's shape).
using Shape = IndexVector<ShapeTag>;
// FRONT(R): the smallest vector strictly above every key of R.
using Frontier = IndexVector<FrontierTag>;

// Row-major flat position of `index` inside `extent` (both of the same length).
template <class A, class B>
std::int64_t row_major_offset(const A& index, const B& extent) {
    std::int64_t off = 0;
    for (std::size_t i = 0; i < extent.size(); ++i) off = off * extent[i] + index[i];
    return off;
}

// Advances `index` to the next position of the box below `extent` in row-major order;
// returns false after the last one.
template <class A, class B>
bool next_in_box(A& index, const B& extent) {
    for (std::size_t i = extent.size(); i-- > 0;) {
        if (++index[i] < extent[i]) return true;
        index[i] = 0;
    }
    return false;
}

}  // namespace tra
