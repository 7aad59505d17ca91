#pragma once
// Programs, plans and profiles shared by the time model's tests (test_time_estimate.cpp,
// test_exchange_time.cpp): hand-sized so every expected second can be worked out in a comment.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

#include "ia/time_estimate.hpp"
#include "kernels/kernel.hpp"
#include "optimizer/search.hpp"
#include "program_fixtures.hpp"
#include "tra/program_builder.hpp"

namespace tra::testing {

// C = A B, A one row of k_tiles tiles and B one column of k_tiles tiles (2x2 f64 tiles: 32
// bytes, 16 flops per tile product): one output tile. `product` is the join's tile kernel.
inline Program common_k(std::int64_t k_tiles = 4,
                        const kernels::KernelCall& product = kernels::KernelCall("matmul")) {
    ProgramBuilder b("k", DType::F64);
    b.add_input("A", Shape{2, 2 * k_tiles}, Shape{2, 2}, DType::F64, generated(), at("A"));
    b.add_input("B", Shape{2 * k_tiles, 2}, Shape{2, 2}, DType::F64, generated(), at("B"));
    b.add_join("AB", "A", "B", {1}, {0}, product, at("AB"));
    b.add_aggregate("C", "AB", {0, 2}, kernels::KernelCall("add"), at("C"));
    b.add_output("C", "out.h5", "/C", at("out"));
    return b.finish();
}

// The plan with these pins, A and B partitioned on k (tiles k = 0, 2 on site 0; 1, 3 on 1).
inline optimizer::RankedPlan pinned(const Program& p, const std::string& join,
                                    const std::string& aggregate) {
    optimizer::SearchOptions o;
    o.pins = {{"AB", join}, {"C", aggregate}};
    o.input_placements[*p.find("A")] = ia::Placement::part({1});
    o.input_placements[*p.find("B")] = ia::Placement::part({0});
    auto plans = optimizer::search_plans(p, 2, o);
    REQUIRE(plans.size() == 1);
    return plans.front();
}

inline constexpr double kInstant = 1e30;  // a rate that makes its term vanish

// A profile with one flop rate for every call (gemm and loop), one link on and across hosts,
// and no fixed costs unless given.
inline ia::TimeModel model(double flops, double bytes, double memory = kInstant, double latency = 0,
                           double call = 0) {
    ia::TimeModel m;
    for (ia::DtypeRates* d : {&m.profile.f32, &m.profile.f64}) {
        d->gemm = {{1, flops}};
        d->loop_flops_per_second = flops;
    }
    m.profile.memory_bytes_per_second = memory;
    m.profile.kernel_call_seconds = call;
    m.profile.same_host = {true, latency, bytes};
    m.profile.across_hosts = {true, latency, bytes};
    return m;
}

}  // namespace tra::testing
