#include "kernels/gemm_pricing.hpp"

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

}  // namespace

void use_gemm_pricing(std::shared_ptr<const GemmPricing> pricing) {
    const std::lock_guard<std::mutex> hold(pricing_lock());
    installed() = std::move(pricing);
}

std::shared_ptr<const GemmPricing> gemm_pricing() {
    const std::lock_guard<std::mutex> hold(pricing_lock());
    return installed();
}

}  // namespace tra::kernels::cpu
