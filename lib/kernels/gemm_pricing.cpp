#include "kernels/gemm_pricing.hpp"

#include <atomic>
#include <mutex>

namespace tra::kernels::cpu {

namespace {

// A lock rather than std::atomic<std::shared_ptr>, which not every standard library here has;
// one uncontended lock per matrix-product call is nothing beside the product.
std::mutex& pricing_lock() {
    static std::mutex lock;
    return lock;
}

std::shared_ptr<const GemmPricing>& installed() {
    static std::shared_ptr<const GemmPricing> pricing;
    return pricing;
}

std::atomic<std::uint64_t> generation{0};

}  // namespace

void use_gemm_pricing(std::shared_ptr<const GemmPricing> pricing) {
    const std::lock_guard<std::mutex> hold(pricing_lock());
    installed() = std::move(pricing);
    ++generation;
}

std::shared_ptr<const GemmPricing> gemm_pricing() {
    const std::lock_guard<std::mutex> hold(pricing_lock());
    return installed();
}

std::uint64_t gemm_pricing_generation() {
    return generation.load();
}

}  // namespace tra::kernels::cpu
