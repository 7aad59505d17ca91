// The einsum kernel's choice of GEMM plan by a machine's pricing (lanes product or permutes for
// BLAS; the product either way) and the GEMM calls a matrix product counts as, which the time
// model prices.
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "einsum_gemm_fixtures.hpp"
#include "kernels/einsum_gemm.hpp"
#include "kernels/gemm_pricing.hpp"
#include "kernels/kernel.hpp"

using namespace tra;
using namespace tra::kernels;
using namespace tra::testing;

namespace {

// A machine on which the lanes product runs at `lanes_speed` times BLAS's rate (1 flop per
// second) and a permute moves 1 element per second; counts how often it was asked.
class HandPricing final : public kernels::cpu::GemmPricing {
  public:
    explicit HandPricing(double lanes_speed) : lanes_speed_(lanes_speed) {}
    double seconds(const kernels::cpu::GemmPlan& p, DType) const override {
        ++asked;
        const auto flops = static_cast<double>(2 * p.batches() * p.lanes * p.m * p.n * p.k);
        return flops / (p.lanes > 1 ? lanes_speed_ : 1.0) +
               static_cast<double>(p.permuted_elements());
    }
    mutable int asked = 0;

  private:
    double lanes_speed_;
};

kernels::cpu::GemmPlan priced_plan(const std::string& a, const std::string& b, const std::string& o,
                                   const std::map<char, std::int64_t>& extents,
                                   const kernels::cpu::GemmPricing& pricing) {
    std::vector<std::int64_t> e(26, 1);
    for (const auto& [c, x] : extents) e[static_cast<std::size_t>(c - 'a')] = x;
    return kernels::cpu::plan_gemm(a, b, o, e, pricing, DType::F64);
}

// Installs a pricing for this process's kernels until the end of the scope.
struct InstalledPricing {
    explicit InstalledPricing(std::shared_ptr<const kernels::cpu::GemmPricing> p) {
        kernels::cpu::use_gemm_pricing(std::move(p));
    }
    ~InstalledPricing() { kernels::cpu::use_gemm_pricing(nullptr); }
};

}  // namespace

TEST_CASE("einsum: a machine's pricing chooses between lanes and permutes for BLAS",
          "[einsum][gemm]") {
    const std::map<char, std::int64_t> e{{'i', 5}, {'j', 6}, {'k', 7}, {'b', 8}};
    // ikb,kjb->ijb: 2*5*6*7*8 = 3360 flops; lanes permute nothing, BLAS all three tensors
    // (5*7*8 + 7*6*8 + 5*6*8 = 856 elements). Lanes at half BLAS's rate: 6720 s against 3360 + 856
    // s, so BLAS; at BLAS's rate, 3360 s against 4216 s, so lanes.
    const HandPricing slow_lanes(0.5), even(1.0);
    CHECK(priced_plan("ikb", "kjb", "ijb", e, slow_lanes).lanes == 1);
    CHECK(priced_plan("ikb", "kjb", "ijb", e, slow_lanes).permuted_elements() == 856);
    CHECK(priced_plan("ikb", "kjb", "ijb", e, even).lanes == 8);
    // Only where both exist is the pricing asked: BLAS reads bik,bkj->bij in place.
    const HandPricing counting(1.0);
    CHECK(priced_plan("bik", "bkj", "bij", e, counting).lanes == 1);
    CHECK(counting.asked == 0);
    // ikb,kjb->ibj: the lanes plan permutes the product (5*6*8 = 240), BLAS both operands (280 +
    // 336 = 616). Lanes at 0.9x: 3733 + 240 s against 3360 + 616 s, so lanes, barely; at 0.8x BLAS.
    CHECK(priced_plan("ikb", "kjb", "ibj", e, HandPricing(0.9)).lanes == 8);
    CHECK(priced_plan("ikb", "kjb", "ibj", e, HandPricing(0.8)).lanes == 1);

    // The kernel asks the installed pricing, and either plan gives the product.
    for (const double speed : {0.5, 1.0}) {
        INFO("lanes at " << speed << "x BLAS");
        const auto pricing = std::make_shared<HandPricing>(speed);
        const InstalledPricing installed(pricing);
        check_spec("ikb", "kjb", "ijb", e);
        check_spec("ikb", "kjb", "ibj", e);
        CHECK(pricing->asked > 0);
    }
}

TEST_CASE("einsum: every matrix product counts as GEMM calls, one per batch index",
          "[einsum][gemm]") {
    auto calls = [](const std::string& spec, std::vector<Shape> shapes,
                    const std::string& agg = "add") {
        KernelParams p;
        p.spec = spec;
        p.agg_op = agg;
        return KernelCall("einsum", p).gemm_calls(shapes);
    };
    using G = kernels::GemmCalls;  // {count, m, n, k}
    CHECK(calls("ik,kj->ij", {Shape{4, 5}, Shape{5, 6}}) == G{1, 4, 6, 5});
    CHECK(calls("shd,thd->hst", {Shape{8, 3, 4}, Shape{7, 3, 4}}) == G{3, 8, 7, 4});
    CHECK(calls("bij,jbk->bik", {Shape{2, 3, 4}, Shape{4, 2, 5}}) == G{2, 3, 5, 4});
    CHECK(calls("bic,cbj->jci", {Shape{2, 3, 4}, Shape{4, 2, 5}}) == G{4, 3, 5, 2});  // b summed
    CHECK(calls("bic,cbj->cjbi", {Shape{2, 3, 4}, Shape{4, 2, 5}}) == G{8, 3, 5, 1});
    // j is summed inside the first operand alone, before the GEMM: not one of its extents.
    CHECK(calls("ikj,k->i", {Shape{2, 3, 4}, Shape{3}}) == G{1, 2, 1, 3});
    CHECK(calls("ik,kj->ij", {Shape{4, 5}, Shape{5, 6}}, "max") == std::nullopt);
    CHECK(calls("ij->i", {Shape{4, 5}}) == std::nullopt);
}
