#include "kernels/scratch_held.hpp"

#include <atomic>

namespace tra::kernels {

namespace {

std::atomic<std::int64_t>& held() {
    static std::atomic<std::int64_t> bytes{0};
    return bytes;
}

}  // namespace

std::int64_t scratch_bytes_held() {
    return held().load(std::memory_order_relaxed);
}

void HeldBytes::set(std::int64_t bytes) {
    held().fetch_add(bytes - bytes_, std::memory_order_relaxed);
    bytes_ = bytes;
}

}  // namespace tra::kernels
