#pragma once
// A vector whose copies share their elements until one of them changes: the storage of IA plans
// under construction. The search extends every partial plan in several ways and keeps the
// cheapest, so plans are copied once per candidate; copying a std::vector of nodes made that
// quadratic in the plan size (docs/cost-model.md, "Planner performance").
//
// Elements live in fixed-size chunks of shared element pointers. A copy copies the chunk
// pointers (size / kChunk of them); push_back and mutable_at copy at most one chunk of pointers
// and one element, and only when they are shared with another copy (copy on write). Reading
// never copies. References to elements stay valid across push_back.
//
// Single-threaded: whether a chunk or element is shared is read from its use count.
#include <cstddef>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tra::ia {

template <class T>
class PersistentVector {
  public:
    class const_iterator {
      public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = const T*;
        using reference = const T&;

        const_iterator(const PersistentVector* v, std::size_t i) : v_(v), i_(i) {}
        const T& operator*() const { return (*v_)[i_]; }
        const T* operator->() const { return &(*v_)[i_]; }
        const_iterator& operator++() {
            ++i_;
            return *this;
        }
        bool operator==(const const_iterator& o) const { return i_ == o.i_; }
        bool operator!=(const const_iterator& o) const { return i_ != o.i_; }

      private:
        const PersistentVector* v_;
        std::size_t i_;
    };

    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size_}; }

    const T& operator[](std::size_t i) const { return *(*chunks_[i / kChunk])[i % kChunk]; }
    const T& at(std::size_t i) const {
        check(i);
        return (*this)[i];
    }
    const T& back() const { return (*this)[size_ - 1]; }

    // The element, made this copy's own first if another copy shares it.
    T& mutable_at(std::size_t i) {
        check(i);
        std::shared_ptr<T>& slot = own_chunk(i / kChunk)[i % kChunk];
        if (slot.use_count() > 1) slot = std::make_shared<T>(*slot);
        return *slot;
    }

    void push_back(T value) {
        if (size_ % kChunk == 0) {
            chunks_.push_back(std::make_shared<Chunk>());
            chunks_.back()->reserve(kChunk);
        }
        own_chunk(chunks_.size() - 1).push_back(std::make_shared<T>(std::move(value)));
        ++size_;
    }

  private:
    static constexpr std::size_t kChunk = 32;
    using Chunk = std::vector<std::shared_ptr<T>>;

    void check(std::size_t i) const {
        if (i >= size_)
            throw std::out_of_range("element " + std::to_string(i) + " of " +
                                    std::to_string(size_));
    }

    Chunk& own_chunk(std::size_t c) {
        if (chunks_[c].use_count() > 1) {
            auto copy = std::make_shared<Chunk>();
            copy->reserve(kChunk);
            copy->assign(chunks_[c]->begin(), chunks_[c]->end());
            chunks_[c] = std::move(copy);
        }
        return *chunks_[c];
    }

    std::vector<std::shared_ptr<Chunk>> chunks_;
    std::size_t size_ = 0;
};

}  // namespace tra::ia
