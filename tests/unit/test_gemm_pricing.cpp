// How the time model prices one gemm call (ia/machine_profile.hpp, Kernel::gemm_calls): the
// rate of its size, which calls count as gemm and with what m, n, k, and what thin or flat
// calls pay beyond a square one of the same flops, with the fit calibrate makes of those rates.
// Every expected value is computed by hand in the comments.
#include <catch2/catch.hpp>

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
