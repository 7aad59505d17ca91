// How the time model prices one gemm call (ia/machine_profile.hpp, Kernel::gemm_calls): the
// rate of its size, which calls count as gemm and with what m, n, k, and what thin or flat
// calls pay beyond a square one of the same flops, with the fit calibrate makes of those rates.
// Every expected value is computed by hand in the comments.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <vector>

#include "ia/gemm_pricing.hpp"
#include "ia/machine_profile.hpp"
#include "kernels/kernel.hpp"

using namespace tra;
using kernels::KernelCall;

TEST_CASE("gemm rates: interpolated in log(size) between measured sizes", "[time]") {
    ia::DtypeRates r;
    r.gemm = {{64, 1e10}, {256, 3e10}};
    r.loop_flops_per_second = 1e9;
    auto flops = [](double size) { return 2 * size * size * size; };
    CHECK(r.gemm_flops_per_second(flops(32)) == Approx(1e10));    // below: the smallest's
    CHECK(r.gemm_flops_per_second(flops(128)) == Approx(2e10));   // halfway in log(size)
    CHECK(r.gemm_flops_per_second(flops(1024)) == Approx(3e10));  // above: the largest's
}

TEST_CASE("gemm calls: which contractions the model prices at a gemm rate", "[time]") {
    using G = kernels::GemmCalls;  // {count, m, n, k}
    const Shape m{4, 4};
    const Shape a[] = {m, m};
    CHECK(KernelCall("matmul").gemm_calls(a) == G{1, 4, 4, 4});
    CHECK(KernelCall("add").gemm_calls(a) == std::nullopt);
    const Shape thin[] = {Shape{6, 2}, Shape{3, 6}};  // [k, m] by [n, k]: A^T B^T
    CHECK(KernelCall("matmul_tt").gemm_calls(thin) == G{1, 2, 3, 6});
    const Shape mismatched[] = {Shape{4, 5}, Shape{4, 5}};
    CHECK(KernelCall("matmul").gemm_calls(mismatched) == std::nullopt);
    CHECK(KernelCall("matmul").flops(mismatched) == 0);
    kernels::KernelParams batched;
    batched.spec = "hsd,htd->hst";  // batch label leading everywhere: one gemm per h
    const Shape b[] = {Shape{3, 4, 5}, Shape{3, 6, 5}};
    CHECK(KernelCall("einsum", batched).gemm_calls(b) == G{3, 4, 6, 5});
    kernels::KernelParams strided = batched;
    strided.spec = "shd,thd->hst";  // h not leading: still one (strided) gemm per h
    const Shape c[] = {Shape{4, 3, 5}, Shape{6, 3, 5}};
    CHECK(KernelCall("einsum", strided).gemm_calls(c) == G{3, 4, 6, 5});
    kernels::KernelParams loop = strided;
    loop.agg_op = "max";  // no matrix product: einsum's loop
    CHECK(KernelCall("einsum", loop).gemm_calls(c) == std::nullopt);
}

TEST_CASE("gemm excess: thin and flat products pay for the bytes a square one does not move",
          "[time]") {
    // A square call moves the fewest bytes for its flops: no excess.
    const ia::GemmExcess square = ia::gemm_excess(64, 64, 64);
    CHECK(square.operand_elements == Approx(0).margin(1e-6));
    CHECK(square.result_elements == Approx(0).margin(1e-6));
    // 8 x 64 by 64 x 64: the square call of the same flops has side 32. Operands 8*64 + 64*64
    // = 4608 elements, 2 * 32^2 = 2048 more than its; result 8*64 = 512, fewer than 32^2.
    const ia::GemmExcess thin = ia::gemm_excess(8, 64, 64);
    CHECK(thin.operand_elements == Approx(2560));
    CHECK(thin.result_elements == 0);
    CHECK(ia::gemm_excess(64, 8, 64).operand_elements == Approx(2560));  // n short: the same
    // k short: the operands are small, the result 64*64 = 4096, 3072 more than 32^2.
    const ia::GemmExcess flat = ia::gemm_excess(64, 64, 8);
    CHECK(flat.operand_elements == 0);
    CHECK(flat.result_elements == Approx(3072));

    ia::DtypeRates r;
    r.gemm = {{32, 1e10}};
    r.loop_flops_per_second = 1e9;
    CHECK(r.gemm_excess_seconds(8, 64, 64, 8) == 0);  // no rates: not charged
    r.gemm_operand_excess_bytes_per_second = 2560 * 8;
    r.gemm_result_excess_bytes_per_second = 3072 * 4;
    CHECK(r.gemm_excess_seconds(8, 64, 64, 8) == Approx(1));  // operands' bytes at their rate
    CHECK(r.gemm_excess_seconds(64, 64, 8, 4) == Approx(1));  // the result's at its rate
    CHECK(r.gemm_excess_seconds(64, 64, 64, 8) == Approx(0).margin(1e-9));

    // The fit: 1 s beyond the square call for the thin samples' operand bytes and 2 s for the
    // flat one's result bytes gives the rates back; samples no slower than square calls give
    // kNoGemmExcess.
    const ia::GemmSample slow[] = {{8, 64, 64, 1}, {64, 8, 64, 1}, {64, 64, 8, 2}};
    const ia::GemmExcessRates fit = ia::fitted_gemm_excess_rates(slow, 8);
    CHECK(fit.operand_bytes_per_second == Approx(2560 * 8));
    CHECK(fit.result_bytes_per_second == Approx(3072 * 8 / 2.0));
    const ia::GemmSample fast[] = {{8, 64, 64, 0}, {64, 64, 8, -1e-6}};
    const ia::GemmExcessRates none = ia::fitted_gemm_excess_rates(fast, 8);
    CHECK(none.operand_bytes_per_second == ia::kNoGemmExcess);
    CHECK(none.result_bytes_per_second == ia::kNoGemmExcess);
    // No sample with result excess: that rate is unmeasured, so nothing is charged.
    const ia::GemmSample thin_only[] = {{8, 64, 64, 1}};
    CHECK(ia::fitted_gemm_excess_rates(thin_only, 8).result_bytes_per_second == ia::kNoGemmExcess);
}

TEST_CASE("gemm pricing: a profile prices lanes products at their rate and permutes as passes",
          "[time]") {
    // f64, BLAS at 1e10 flop/s whatever the size, no excess charged, memory at 1e9 B/s.
    ia::MachineProfile p = ia::default_machine_profile();
    p.f64.gemm = {{64, 1e10}};
    p.f64.gemm_operand_excess_bytes_per_second = p.f64.gemm_result_excess_bytes_per_second = 0;
    p.f64.lanes_flops_per_second = 5e9;
    p.memory_bytes_per_second = 1e9;
    const ia::ProfileGemmPricing pricing(p);
    kernels::KernelParams params;
    params.spec = "ikb,kjb->ijb";  // b innermost everywhere: lanes permute nothing
    const KernelCall call("einsum", params);
    const Shape shapes[] = {Shape{4, 4, 8}, Shape{4, 4, 8}};
    // 2 * 4^3 * 8 = 1024 flops. Lanes: 1024 / 5e9 = 2.048e-7 s. BLAS: 1024 / 1e10 = 1.024e-7 s
    // plus A, B and C permuted, 3 * 128 elements of 8 bytes read and written: 6144 bytes,
    // 6.144e-6 s. Lanes are cheaper.
    const auto lanes = ia::einsum_gemm_plan(call, shapes, pricing, DType::F64);
    REQUIRE(lanes);
    CHECK(lanes->lanes == 8);
    CHECK(pricing.seconds(*lanes, DType::F64) == Approx(2.048e-7));
    CHECK(pricing.product_seconds(*lanes, DType::F64, 1024) == Approx(2.048e-7));
    CHECK(pricing.permuted_bytes(*lanes, DType::F64) == 0);
    // Lanes at 1e8 flop/s: 1.024e-5 s, more than BLAS's 1.024e-7 + 6.144e-6 s.
    p.f64.lanes_flops_per_second = 1e8;
    const auto blas = ia::einsum_gemm_plan(call, shapes, pricing, DType::F64);
    REQUIRE(blas);
    CHECK(blas->lanes == 1);
    CHECK(pricing.permuted_bytes(*blas, DType::F64) == 6144);
    CHECK(pricing.seconds(*blas, DType::F64) == Approx(1.024e-7 + 6.144e-6));
    // Unmeasured (0): a lanes plan is priced as the BLAS calls of its geometry (8 calls of
    // 4 x 4 x 4), so the plan permuting fewer elements wins: lanes, as without a pricing.
    p.f64.lanes_flops_per_second = 0;
    const auto unmeasured = ia::einsum_gemm_plan(call, shapes, pricing, DType::F64);
    REQUIRE(unmeasured);
    CHECK(unmeasured->lanes == 8);
    CHECK(pricing.seconds(*unmeasured, DType::F64) == Approx(1.024e-7));
    // A measured permute rate prices the permutes instead of the memory rate: at 5e8 B/s the
    // BLAS plan's 6144 bytes take 1.2288e-5 s.
    p.permute_bytes_per_second = 5e8;
    CHECK(pricing.permute_seconds(*blas, DType::F64) == Approx(1.2288e-5));
    CHECK(pricing.seconds(*blas, DType::F64) == Approx(1.024e-7 + 1.2288e-5));
    p.permute_bytes_per_second = 0;
    // And the lanes rate of one dtype leaves the other's alone.
    p.f64.lanes_flops_per_second = 1e8;
    const auto f32 = ia::einsum_gemm_plan(call, shapes, pricing, DType::F32);
    REQUIRE(f32);
    CHECK(f32->lanes == 8);
}

TEST_CASE("gemm pricing: the lanes rate by lane count, interpolated in log(lanes)", "[time]") {
    ia::DtypeRates r;
    r.lanes_flops_per_second = 3.5e10;
    CHECK(r.lanes_flops_per_second_at(64) == 3.5e10);  // no counts: one rate for all
    r.lanes_by_count = {{8, 4e10}, {64, 1e10}};
    CHECK(r.lanes_flops_per_second_at(8) == 4e10);
    CHECK(r.lanes_flops_per_second_at(64) == 1e10);
    CHECK(r.lanes_flops_per_second_at(4) == 4e10);    // below the first count: its rate
    CHECK(r.lanes_flops_per_second_at(128) == 1e10);  // beyond the last: its rate
    // 16 lanes: log(16 / 8) / log(64 / 8) = 1/3 of the way from 4e10 to 1e10.
    CHECK(r.lanes_flops_per_second_at(16) == Approx(3e10));

    // The choice follows: ikb,kjb->ijb on 4 x 4 tiles, BLAS at 1e10 flop/s, permutes free.
    ia::MachineProfile p = ia::default_machine_profile();
    p.f64.gemm = {{64, 1e10}};
    p.f64.gemm_operand_excess_bytes_per_second = p.f64.gemm_result_excess_bytes_per_second = 0;
    p.f64.lanes_by_count = {{8, 4e10}, {64, 5e9}};
    p.permute_bytes_per_second = 1e15;
    const ia::ProfileGemmPricing pricing(p);
    kernels::KernelParams params;
    params.spec = "ikb,kjb->ijb";
    const KernelCall call("einsum", params);
    // 8 lanes: 1024 flops, lanes 2.56e-8 s against BLAS's 1.024e-7 s.
    const Shape narrow[] = {Shape{4, 4, 8}, Shape{4, 4, 8}};
    const auto eight = ia::einsum_gemm_plan(call, narrow, pricing, DType::F64);
    REQUIRE(eight);
    CHECK(eight->lanes == 8);
    CHECK(pricing.seconds(*eight, DType::F64) == Approx(2.56e-8));
    // 64 lanes: 8192 flops, lanes 1.6384e-6 s against BLAS's 8.192e-7 s (and permutes ~0).
    const Shape wide[] = {Shape{4, 4, 64}, Shape{4, 4, 64}};
    const auto sixty_four = ia::einsum_gemm_plan(call, wide, pricing, DType::F64);
    REQUIRE(sixty_four);
    CHECK(sixty_four->lanes == 1);
}

TEST_CASE("gemm pricing: a shape measured by calibrate --for is priced at its rate alone",
          "[time]") {
    ia::DtypeRates r;
    r.gemm = {{64, 4e10}};
    r.gemm_operand_excess_bytes_per_second = 1e9;
    r.gemm_result_excess_bytes_per_second = 1e9;
    r.gemm_shapes = ia::GemmShapeRates({{20, 100, 3000, 2.5e10}, {3000, 100, 20, 5e10}});
    // 10 calls of 20 x 3000 by 3000 x 100: 10 * 2 * 20 * 100 * 3000 = 1.2e8 flops at 2.5e10.
    CHECK(ia::blas_seconds(r, 1.2e8, {10, 20, 100, 3000}, 8) == Approx(1.2e8 / 2.5e10));
    CHECK(ia::blas_seconds(r, 1.2e8, {10, 3000, 100, 20}, 8) == Approx(1.2e8 / 5e10));
    // Not measured (100 x 3000 by 3000 x 20): the size's rate, 4e10 (below 64: the first), plus
    // the excess bytes, as without shapes.
    ia::DtypeRates without = r;
    without.gemm_shapes = {};
    const double expected = ia::blas_seconds(without, 1.2e8, {10, 100, 20, 3000}, 8);
    CHECK(ia::blas_seconds(r, 1.2e8, {10, 100, 20, 3000}, 8) == Approx(expected));
    CHECK(expected > 1.2e8 / 4e10);  // the excess is charged there
}

TEST_CASE("gemm shape rates: found by exact shape, out of order or not positive is refused",
          "[time]") {
    const ia::GemmShapeRates rates({{2, 3, 4, 1e9}, {2, 4, 1, 2e9}, {5, 1, 1, 3e9}});
    CHECK(rates.flops_per_second(2, 4, 1) == 2e9);
    CHECK(rates.flops_per_second(5, 1, 1) == 3e9);
    CHECK_FALSE(rates.flops_per_second(2, 3, 5));
    CHECK_FALSE(rates.flops_per_second(1, 1, 1));
    CHECK_FALSE(ia::GemmShapeRates().flops_per_second(2, 3, 4));
    using P = std::vector<ia::GemmShapeRate>;
    const auto out_of_order = ia::GemmShapeRates::problem(P{{2, 4, 1, 1e9}, {2, 3, 4, 1e9}});
    REQUIRE(out_of_order);
    CHECK(out_of_order->point == 1);
    const auto twice = ia::GemmShapeRates::problem(P{{2, 4, 1, 1e9}, {2, 4, 1, 2e9}});
    REQUIRE(twice);
    CHECK(twice->point == 1);
    const auto zero = ia::GemmShapeRates::problem(P{{2, 4, 1, 1e9}, {3, 4, 1, 0}});
    REQUIRE(zero);
    CHECK(zero->point == 1);
    CHECK(ia::GemmShapeRates::problem(P{{2, 0, 1, 1e9}})->point == 0);
    CHECK_THROWS_AS(ia::GemmShapeRates(P{{2, 4, 1, 1e9}, {2, 3, 4, 1e9}}), std::invalid_argument);
}

TEST_CASE("gemm pricing: batches shared among the rank's threads, at most the curve's best rate",
          "[time]") {
    // f64 rates of calls on 2 threads: 1e10 at 64^3, 3e10 at 128^3; no excess charged.
    ia::MachineProfile p = ia::default_machine_profile();
    p.blas_threads = 2;
    p.f64.gemm = {{64, 1e10}, {128, 3e10}};
    p.f64.gemm_operand_excess_bytes_per_second = p.f64.gemm_result_excess_bytes_per_second = 0;
    const ia::ProfileGemmPricing pricing(p);
    kernels::KernelParams params;
    params.spec = "bik,bkj->bij";
    const KernelCall call("einsum", params);
    auto priced = [&](std::int64_t batches) {
        const Shape shapes[] = {Shape{batches, 64, 64}, Shape{batches, 64, 64}};
        const auto plan = ia::einsum_gemm_plan(call, shapes, pricing, DType::F64);
        REQUIRE(plan);
        return pricing.seconds(*plan, DType::F64);
    };
    const double call_flops = 2.0 * 64 * 64 * 64;  // 524288
    // 8 calls, 4 per thread side by side: two calls at once at 64^3's rate, 2e10 in all (under
    // the curve's best, 3e10).
    CHECK(priced(8) == Approx(8 * call_flops / 2e10));
    // 9 calls do not share out evenly among 2 (fewer than 8 each): in turn, at 64^3's rate.
    CHECK(priced(9) == Approx(9 * call_flops / 1e10));
    // 17 do (8 or more each): in 9 turns of 2, the last turn's idle thread counted as busy.
    CHECK(priced(17) == Approx(18 * call_flops / 2e10));
    // A profile measured with 1 thread shares nothing.
    p.blas_threads = 1;
    CHECK(priced(8) == Approx(8 * call_flops / 1e10));
    // Where twice the size's rate passes the curve's best (1.5e10 at 128^3), the best.
    p.blas_threads = 2;
    p.f64.gemm = {{64, 1e10}, {128, 1.5e10}};
    CHECK(priced(8) == Approx(8 * call_flops / 1.5e10));
    // A shape measured by calibrate --for takes its own rate in place of the size's: 6e9 twice,
    // 1.2e10; 1.2e10 twice is past the best, 1.5e10; 2e10, itself past the best, gains nothing.
    p.f64.gemm_shapes = ia::GemmShapeRates({{64, 64, 64, 6e9}});
    CHECK(priced(8) == Approx(8 * call_flops / 1.2e10));
    p.f64.gemm_shapes = ia::GemmShapeRates({{64, 64, 64, 1.2e10}});
    CHECK(priced(8) == Approx(8 * call_flops / 1.5e10));
    p.f64.gemm_shapes = ia::GemmShapeRates({{64, 64, 64, 2e10}});
    CHECK(priced(8) == Approx(8 * call_flops / 2e10));
}

TEST_CASE("gemm pricing: TTGT's permute rate is what TTGT took beyond its products as priced",
          "[time]") {
    // f64 gemm 1e10 flop/s at 4^3, 4e10 at 64^3; no excess charged.
    ia::MachineProfile p = ia::default_machine_profile();
    p.f64.gemm = {{4, 1e10}, {64, 4e10}};
    p.f64.gemm_operand_excess_bytes_per_second = p.f64.gemm_result_excess_bytes_per_second = 0;
    std::vector<std::int64_t> extents(26, 1);
    extents['i' - 'a'] = extents['j' - 'a'] = extents['k' - 'a'] = 4;
    extents['b' - 'a'] = 16;
    kernels::TtgtFigures ttgt;
    ttgt.plan = kernels::cpu::plan_gemm("ikb", "kjb", "ijb", extents, true);
    REQUIRE(ttgt.plan.permuted_elements() == 3 * 4 * 4 * 16);  // 12288 bytes read and written
    ttgt.lone_bytes_per_second = 5e9;
    // 16 calls of 4^3 (2048 flops) on one thread: 2.048e-7 s at 1e10; the rest is permutes'.
    p.blas_threads = 1;
    ttgt.seconds = 2.048e-7 + 12288 / 1e9;
    CHECK(ia::ttgt_permute_rate(p, ttgt) == Approx(1e9));
    // On two threads the 16 calls share out, 8 turns of 2 at twice 4^3's rate: 1.024e-7 s.
    p.blas_threads = 2;
    ttgt.seconds = 1.024e-7 + 12288 / 1e9;
    CHECK(ia::ttgt_permute_rate(p, ttgt) == Approx(1e9));
    // Never above the lone permutes' rate, where the product took no longer than its price.
    ttgt.seconds = 1e-7;
    CHECK(ia::ttgt_permute_rate(p, ttgt) == Approx(5e9));
}
