#pragma once
// Keys, shapes and frontiers are all short vectors of integers, but they mean different things;
// the tag makes them distinct types that share one implementation.
#include <algorithm>
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
    IndexVector(std::initializer_list<std::int64_t> v) { append(v.begin(), v.end()); }
    explicit IndexVector(const std::vector<std::int64_t>& v) {
        append(v.data(), v.data() + v.size());
    }
    explicit IndexVector(std::size_t n, std::int64_t fill = 0) {
        for (std::size_t i = 0; i < n; ++i) push_back(fill);
    }

    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    std::int64_t& operator[](std::size_t i) { return data()[i]; }
    std::int64_t operator[](std::size_t i) const { return data()[i]; }
    const std::int64_t* begin() const { return data(); }
    const std::int64_t* end() const { return data() + size_; }
    std::int64_t* begin() { return data(); }
    std::int64_t* end() { return data() + size_; }
    void push_back(std::int64_t x) {
        if (size_ < kInline) {
            inline_[size_] = x;
        } else {
            if (size_ == kInline) heap_.assign(inline_, inline_ + kInline);
            heap_.push_back(x);
        }
        ++size_;
    }
    std::vector<std::int64_t> values() const { return {begin(), end()}; }

    // Product of the entries (1 for an empty vector): elements of a shape, tuples of a box.
    std::int64_t product() const {
        std::int64_t p = 1;
        for (auto x : *this) p *= x;
        return p;
    }

    // "(1, 2)" for keys, "[1, 2]" for shapes and frontiers.
    std::string str() const {
        std::string s(1, Tag::open);
        for (std::size_t i = 0; i < size_; ++i) s += (i ? ", " : "") + std::to_string((*this)[i]);
        return s + Tag::close;
    }

    friend bool operator==(const IndexVector& a, const IndexVector& b) {
        return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
    }
    friend bool operator!=(const IndexVector& a, const IndexVector& b) { return !(a == b); }
    friend bool operator<(const IndexVector& a, const IndexVector& b) {
        return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
    }

  private:
    // Keys, shapes and frontiers rarely have more than four entries: those are held inline,
    // without an allocation (planning at 1024 sites makes millions of keys).
    static constexpr std::size_t kInline = 4;

    const std::int64_t* data() const { return size_ <= kInline ? inline_ : heap_.data(); }
    std::int64_t* data() { return size_ <= kInline ? inline_ : heap_.data(); }
    void append(const std::int64_t* first, const std::int64_t* last) {
        for (; first != last; ++first) push_back(*first);
    }

    std::size_t size_ = 0;
    std::int64_t inline_[kInline] = {};
    std::vector<std::int64_t> heap_;  // every entry, once there are more than kInline
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
