// `tra calibrate`'s pieces that need no second rank: the kernel measurements on tiny settings
// (every figure measured, in order; rates positive, excess seconds finite) and which ranks the
// link measurements pair up.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/kernel_calibration.hpp"
#include "runtime/link_calibration.hpp"

using namespace tra;

TEST_CASE("kernel calibration: every figure, in order, positive and finite", "[calibration]") {
    kernels::KernelCalibrationSettings s;
    s.gemm_sizes = {4, 8, 16};
    s.thin_long = 16;
    s.thin_short = 2;
    s.thin_operand_bytes = 4096;  // a few operand sets, taken in turn
    s.loop_extent = 4;
    s.lanes_extent = 4;  // a gemm size: TTGT's permutes are measured inside TTGT too
    s.stream_extent = 32;
    s.min_seconds = 0.001;
    s.min_samples = 3;
    std::vector<std::string> seen;
    const kernels::KernelRates r =
        kernels::calibrate_kernels(s, [&](const std::string& what) { seen.push_back(what); });
    const std::vector<std::string> expected = {"add f64 1 x 1 (the fixed cost of a call)",
                                               "matmul f64 4",
                                               "matmul f64 8",
                                               "matmul f64 16",
                                               "matmul f64 2 x 16 by 16 x 16 beside 8",
                                               "matmul f64 16 x 16 by 16 x 2 beside 8",
                                               "matmul f64 16 x 2 by 2 x 16 beside 8",
                                               "einsum(ikb,kjb->ijb; join=add, agg=max) f64 4",
                                               "einsum(ikb,kjb->ijb; join=mul, agg=add) f64 4, "
                                               "8 lanes",
                                               "einsum(ikb,kjb->ijb; join=mul, agg=add) f64 4, "
                                               "16 lanes",
                                               "einsum(ikb,kjb->ijb; join=mul, agg=add) f64 4, "
                                               "64 lanes",
                                               "einsum(ikb,kjb->ijb; join=mul, agg=add) f64 4, "
                                               "256 lanes",
                                               "einsum(ikb,kjb->ijb; join=mul, agg=add) f64 4, "
                                               "1024 lanes",
                                               "matmul f32 4",
                                               "matmul f32 8",
                                               "matmul f32 16",
                                               "matmul f32 2 x 16 by 16 x 16 beside 8",
                                               "matmul f32 16 x 16 by 16 x 2 beside 8",
                                               "matmul f32 16 x 2 by 2 x 16 beside 8",
                                               "einsum(ikb,kjb->ijb; join=add, agg=max) f32 4",
                                               "einsum(ikb,kjb->ijb; join=mul, agg=add) f32 4, "
                                               "8 lanes",
                                               "einsum(ikb,kjb->ijb; join=mul, agg=add) f32 4, "
                                               "16 lanes",
                                               "einsum(ikb,kjb->ijb; join=mul, agg=add) f32 4, "
                                               "64 lanes",
                                               "einsum(ikb,kjb->ijb; join=mul, agg=add) f32 4, "
                                               "256 lanes",
                                               "einsum(ikb,kjb->ijb; join=mul, agg=add) f32 4, "
                                               "1024 lanes",
                                               "add f64 32 x 32",
                                               "einsum(ijb->bij; join=mul, agg=add) f64 4 x 4 x "
                                               "16, 2 tiles in turn",
                                               "einsum(bij->ijb; join=mul, agg=add) f64 16 x 4 x "
                                               "4, 2 tiles in turn",
                                               "einsum(ikb,kjb->ijb; join=mul, agg=add) f64 4 x 4 "
                                               "x 16 by TTGT, 1 tile pairs in turn"};
    CHECK(seen == expected);
    auto good = [](double v) { return std::isfinite(v) && v > 0; };
    for (const kernels::DtypeKernelRates* d : {&r.f64, &r.f32}) {
        REQUIRE(d->gemm.size() == 3);
        for (std::size_t i = 0; i < 3; ++i) {
            CHECK(d->gemm[i].size == s.gemm_sizes[i]);
            CHECK(good(d->gemm[i].flops_per_second));
        }
        // m, n and k short in turn.
        REQUIRE(d->thin_gemm.size() == 3);
        CHECK(d->thin_gemm[0].m == 2);
        CHECK(d->thin_gemm[1].n == 2);
        CHECK(d->thin_gemm[2].k == 2);
        for (const kernels::ThinGemmPoint& g : d->thin_gemm) {
            CHECK(g.m * g.n * g.k == 2 * 16 * 16);
            CHECK(std::isfinite(g.excess_seconds));
        }
        CHECK(good(d->loop_flops_per_second));
        CHECK(good(d->lanes_flops_per_second));
        REQUIRE(d->lanes_by_count.size() == std::size(kernels::kCalibrationLaneCounts));
        for (std::size_t i = 0; i < d->lanes_by_count.size(); ++i) {
            CHECK(d->lanes_by_count[i].size == kernels::kCalibrationLaneCounts[i]);
            CHECK(good(d->lanes_by_count[i].flops_per_second));
        }
        CHECK(d->lanes_by_count[1].flops_per_second == d->lanes_flops_per_second);  // 16 lanes
    }
    CHECK(good(r.memory_bytes_per_second));
    CHECK(good(r.ttgt.seconds));
    CHECK(good(r.ttgt.lone_bytes_per_second));
    CHECK(r.ttgt.plan.lanes == 1);  // the BLAS plan: all three permuted
    CHECK(r.ttgt.plan.permuted_elements() == 3 * 4 * 4 * 16);
    CHECK(good(r.kernel_call_seconds));
    // A call on 1 x 1 tiles takes well under a millisecond anywhere.
    CHECK(r.kernel_call_seconds < 1e-3);
}

TEST_CASE("kernel calibration: many lanes on smaller matrices, as many elements as 64 lanes",
          "[calibration]") {
    CHECK(kernels::lanes_extent_for(8, 256) == 256);
    CHECK(kernels::lanes_extent_for(64, 256) == 256);
    CHECK(kernels::lanes_extent_for(256, 256) == 128);  // 128^2 x 256 = 256^2 x 64
    CHECK(kernels::lanes_extent_for(1024, 256) == 64);
    CHECK(kernels::lanes_extent_for(1024, 128) == 32);  // --quick
    CHECK(kernels::lanes_extent_for(1024, 16) == 8);    // at least 8
    CHECK(kernels::lanes_extent_for(1024, 4) == 4);     // never above the extent
}

TEST_CASE("kernel calibration: the shapes asked for, measured in their order", "[calibration]") {
    kernels::KernelCalibrationSettings s;
    s.gemm_sizes = {4};
    s.thin_long = 4;
    s.thin_short = 2;
    s.thin_operand_bytes = 256;
    s.loop_extent = 2;
    s.lanes_extent = 2;
    s.stream_extent = 4;
    s.min_seconds = 0.001;
    s.shape_seconds = 0.001;
    s.min_samples = 3;
    // Left tiles recurring within groups of 3, right tiles streaming; and one product alone.
    s.f64_shapes = {{7, 5, 3, 3, 9, 3}, {2, 9, 4, 1, 1, 1}};
    s.f32_shapes = {{4, 4, 4, 2, 2, 2}};
    std::vector<std::string> seen;
    const kernels::KernelRates r =
        kernels::calibrate_kernels(s, [&](const std::string& what) { seen.push_back(what); });
    CHECK(std::count(seen.begin(), seen.end(), "matmul f64 7 x 3 by 3 x 5") == 1);
    CHECK(std::count(seen.begin(), seen.end(), "matmul f32 4 x 4 by 4 x 4") == 1);
    REQUIRE(r.f64.gemm_shapes.size() == 2);
    CHECK(r.f64.gemm_shapes[0].m == 7);
    CHECK(r.f64.gemm_shapes[0].n == 5);
    CHECK(r.f64.gemm_shapes[0].k == 3);
    CHECK(r.f64.gemm_shapes[1].m == 2);
    REQUIRE(r.f32.gemm_shapes.size() == 1);
    for (const auto* d : {&r.f64, &r.f32})
        for (const kernels::GemmShapePoint& g : d->gemm_shapes)
            CHECK((std::isfinite(g.flops_per_second) && g.flops_per_second > 0));
}

TEST_CASE("link calibration: which ranks are paired", "[calibration]") {
    auto host = [](std::vector<int> ranks) {
        runtime::Host h;
        h.ranks = std::move(ranks);
        return h;
    };
    runtime::HostLayout one;
    one.hosts = {host({0})};
    CHECK_FALSE(runtime::same_host_pair(one));
    CHECK_FALSE(runtime::across_hosts_pair(one));

    runtime::HostLayout shared;
    shared.hosts = {host({0, 1, 2})};
    CHECK(runtime::same_host_pair(shared) == std::pair{0, 1});
    CHECK_FALSE(runtime::across_hosts_pair(shared));

    // One rank on the first host, two on the second: the same-host pair is on the second.
    runtime::HostLayout spread;
    spread.hosts = {host({0}), host({1, 2})};
    CHECK(runtime::same_host_pair(spread) == std::pair{1, 2});
    CHECK(runtime::across_hosts_pair(spread) == std::pair{0, 1});

    runtime::HostLayout apart;
    apart.hosts = {host({0}), host({1})};
    CHECK_FALSE(runtime::same_host_pair(apart));
    CHECK(runtime::across_hosts_pair(apart) == std::pair{0, 1});
}
