#pragma once
// A small per-thread memo of values worth computing once per distinct key: the kernels of a
// run see the same few (spec, shapes) again and again, tile after tile, and for tiles of a few
// dozen elements working out a call (parsing an einsum spec, choosing its GEMM plan) cost more
// than the arithmetic. Per thread, so no lock; bounded, so no input grows it without end (it
// starts over when full). Values are shared, so one stays valid while a caller holds it even
// if a nested call starts the memo over.
#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>

namespace tra::kernels {

template <class Value>
class ThreadMemo {
  public:
    explicit ThreadMemo(std::size_t capacity) : capacity_(capacity) {}

    // The value for `key`, made by `make()` (which may throw: nothing is kept then) the first
    // time this thread asks.
    template <class Make>
    std::shared_ptr<const Value> get(const std::string& key, Make&& make) {
        if (auto it = values_.find(key); it != values_.end()) return it->second;
        auto value = std::make_shared<const Value>(make());
        if (values_.size() >= capacity_) values_.clear();
        values_.emplace(key, value);
        return value;
    }

  private:
    std::size_t capacity_;
    std::unordered_map<std::string, std::shared_ptr<const Value>> values_;
};

}  // namespace tra::kernels
