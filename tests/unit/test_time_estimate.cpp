// ia::estimated_seconds (the time model): per operator, the busiest site's compute, its
// communication (sent or received, whichever is more, plus latencies; its cases in
// test_exchange_time.cpp) and its memory passes, so a plan that moves nothing because one site
// computes everything (a replicated join with one output tile) is seen to be slower than a
// balanced pre-aggregation that moves a little. Every expected value is computed by hand in the
// comments. Programs and profiles shared with the exchange cases: time_model_fixtures.hpp.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "ia/gemm_pricing.hpp"
#include "ia/initial_plan.hpp"
#include "ia/plan_costs.hpp"
#include "ia/time_estimate.hpp"
#include "kernels/kernel.hpp"
#include "optimizer/search.hpp"
#include "program_fixtures.hpp"
#include "time_model_fixtures.hpp"
#include "tra/program_builder.hpp"

using namespace tra;
using kernels::KernelCall;
using optimizer::RankedPlan;
using tra::testing::at;
using tra::testing::common_k;
using tra::testing::generated;
using tra::testing::kInstant;
using tra::testing::model;
using tra::testing::pinned;

TEST_CASE("estimated seconds: the busiest site's flops per operator", "[time]") {
    const Program p = common_k();
    const ia::TimeModel flops_only = model(1, kInstant);
    // Pre-aggregation: each site multiplies its own two k tiles (2 x 16 flops).
    const RankedPlan preagg = pinned(p, "local", "preagg");
    CHECK(preagg.totals.flops == 64);
    CHECK(ia::estimated_seconds(preagg.plan, flops_only) == Approx(32));
    // Replicated join: the same total flops, all of them on the site of the one output tile.
    const RankedPlan rmm = pinned(p, "rmm", "local");
    CHECK(rmm.totals.flops == 64);
    CHECK(ia::estimated_seconds(rmm.plan, flops_only) == Approx(64));
}

TEST_CASE("estimated seconds: the busiest site's exchanged bytes per operator", "[time]") {
    const Program p = common_k();
    const ia::TimeModel bytes_only = model(kInstant, 1);
    // Site 1's partial goes to the home of (0, 0), site 0: 32 tile bytes + 2 key positions * 8
    // + one count 8, sent by site 1 and received by site 0.
    const RankedPlan preagg = pinned(p, "local", "preagg");
    CHECK(preagg.totals.payload_bytes == 32);
    CHECK(ia::estimated_seconds(preagg.plan, bytes_only) == Approx(56));
    // Replicated join: A* and B* each send their two site-1 tiles to site 0: per shuffle
    // 2 * 32 + 2 keys * 3 positions * 8 + one count 8 = 120.
    const RankedPlan rmm = pinned(p, "rmm", "local");
    CHECK(ia::estimated_seconds(rmm.plan, bytes_only) == Approx(240));
}

TEST_CASE("estimated seconds: compute and communication add, and an idle site costs time",
          "[time]") {
    const Program p = common_k();
    const ia::TimeModel rates = model(16, 8);  // one tile product per second, 8 bytes per second
    CHECK(ia::estimated_seconds(pinned(p, "local", "preagg").plan, rates) == Approx(2 + 7));
    CHECK(ia::estimated_seconds(pinned(p, "rmm", "local").plan, rates) == Approx(4 + 30));
}

TEST_CASE("estimated seconds: the memory pass of a join and sum that are not fused", "[time]") {
    const Program p = common_k();
    const ia::TimeModel memory_only = model(kInstant, kInstant, 1);
    // With instant flops, each of a site's two tile products is bound by its operands and
    // result (the roofline: 3 tiles of 32 bytes, 192 bytes per site).
    // Join, shuffle, sum: each site also writes its two products (64 bytes); the sum on site 0,
    // the home of (0, 0), reads all four (128) and writes one tile (32).
    CHECK(ia::estimated_seconds(pinned(p, "local", "shuffle").plan, memory_only) ==
          Approx(192 + 64 + 160));
    // Pre-aggregation: the join adds its products into one accumulator per site (fused: no
    // pass); the combining sum on site 0 reads the two partials (64) and writes one tile (32).
    CHECK(ia::estimated_seconds(pinned(p, "local", "preagg").plan, memory_only) ==
          Approx(192 + 96));
}

TEST_CASE("operator times: a join's busiest site is the first with the most tile products",
          "[time]") {
    // The model asks only the sites up to the first holding the most calls (a join's work
    // grows with them); this is the definition it must agree with. Three k tiles on two
    // sites, A and B partitioned on k: two tile products on one site, one on the other.
    const Program p = common_k(3);
    for (const double call : {0.0, 1.0}) {
        const ia::TimeModel rates = model(16, 8, kInstant, 0, call);
        for (const char* aggregate : {"preagg", "shuffle"}) {
            const RankedPlan r = pinned(p, "local", aggregate);
            const auto times = ia::operator_times(r.plan, rates);
            for (const ia::IaNode& n : r.plan.nodes()) {
                if (n.op != ia::IaOp::LocalJoin) continue;
                const std::vector<std::int64_t>& calls = n.cost.resident;
                const auto most = std::max_element(calls.begin(), calls.end()) - calls.begin();
                CHECK(calls[1 - most] < calls[most]);  // one site does more
                CHECK(times[n.id].busiest == most);
                // One or two 16-flop products a second, plus their call overheads.
                CHECK(times[n.id].compute ==
                      Approx(static_cast<double>(calls[most] / 32) * (1 + call)));
            }
        }
    }
}

TEST_CASE("estimated seconds: a replication map reads its tiles and writes every copy", "[time]") {
    const Program p = common_k();
    const ia::TimeModel memory_only = model(kInstant, kInstant, 1);
    // RMM for one output tile: A and B are each copied once (1 x 1 output grid) by a map, 2 tiles
    // per site read (64 bytes) and 2 copies written (64), per map; the 4 tile products then run
    // on site 0, each bound by its operands and result (4 x 96), fused with the local sum.
    CHECK(ia::estimated_seconds(pinned(p, "rmm", "local").plan, memory_only) ==
          Approx(128 + 128 + 384));
}

TEST_CASE("estimated seconds: one kernel-call overhead per tile a site processes", "[time]") {
    const Program p = common_k();
    const ia::TimeModel calls_only = model(kInstant, kInstant, kInstant, 0, 1);
    // Pre-aggregation: 2 products per site (the fused partial sum adds them in the same calls);
    // the combining sum on site 0 folds 2 partials.
    CHECK(ia::estimated_seconds(pinned(p, "local", "preagg").plan, calls_only) == Approx(2 + 2));
    // Join, shuffle, sum: 2 products per site, then site 0 folds all 4.
    CHECK(ia::estimated_seconds(pinned(p, "local", "shuffle").plan, calls_only) == Approx(2 + 4));
}

TEST_CASE("estimated seconds: an einsum kernel's call pays the einsum's call overhead", "[time]") {
    // The same products as tile einsums (as an `einsum:` step lowers them), which cost a
    // profile's einsum_call_seconds each where it measured one; the sum's calls stay at
    // kernel_call_seconds, and so do matmul's.
    kernels::KernelParams product;
    product.spec = "ik,kj->ij";
    const Program einsum = common_k(4, KernelCall("einsum", product));
    ia::TimeModel calls_only = model(kInstant, kInstant, kInstant, 0, 1);
    const auto preagg = [](const Program& p, const ia::TimeModel& m) {
        return ia::estimated_seconds(pinned(p, "local", "preagg").plan, m);
    };
    CHECK(preagg(einsum, calls_only) == Approx(2 + 2));  // not measured: kernel_call_seconds
    calls_only.profile.einsum_call_seconds = 3;
    // 2 einsum products per site at 3, then site 0 folds 2 partials at 1.
    CHECK(preagg(einsum, calls_only) == Approx(2 * 3 + 2));
    CHECK(preagg(common_k(), calls_only) == Approx(2 + 2));
}

TEST_CASE("estimated seconds: one fixed runtime cost per operator, whatever it does", "[time]") {
    const Program p = common_k();
    ia::TimeModel fixed_only = model(kInstant, kInstant);
    fixed_only.profile.operator_seconds = 1;
    // Every IA node is one operator of the run, each ending in the ranks' agreement: the reads,
    // the join, the shuffle, the sum, however little they compute or move.
    for (const char* aggregate : {"preagg", "shuffle"}) {
        INFO(aggregate);
        const ia::Plan plan = pinned(p, "local", aggregate).plan;
        CHECK(ia::estimated_seconds(plan, fixed_only) == Approx(static_cast<double>(plan.size())));
        for (const ia::OperatorTime& t : ia::operator_times(plan, fixed_only)) {
            CHECK(t.fixed == 1);
            CHECK(t.seconds() == Approx(1));
        }
    }
    // Not measured (0, the built-in default's): not charged.
    CHECK(ia::estimated_seconds(pinned(p, "local", "preagg").plan, model(kInstant, kInstant)) ==
          Approx(0).margin(1e-12));
}

TEST_CASE("estimated seconds: a loop's carry pays the fixed cost of an exchange operator",
          "[time]") {
    // X <- relu(X) on 2 sites: the map keeps X where it starts, so the carry moves nothing, but
    // it is one operator of the run ("carry" in the report) all the same.
    ProgramBuilder b("loop", DType::F64);
    b.add_input("X", Shape{8, 8}, Shape{2, 2}, DType::F64, generated(), at("X"));
    b.add_transform("Y", "X", KernelCall("relu"), at("Y"));
    REQUIRE_FALSE(b.try_set_repeat(3, {{"X", "Y", {}}}, {}));
    b.add_output("Y", "out.h5", "/Y", at("out"));
    const Program p = b.finish();
    ia::Plan plan = ia::compile_initial(p, 2);
    ia::annotate_costs(plan);
    ia::TimeModel fixed_only = model(kInstant, kInstant);
    fixed_only.profile.operator_seconds = 1;
    const std::vector<double> carry = ia::carry_seconds(plan, fixed_only);
    REQUIRE(carry.size() == 1);
    CHECK(carry[0] == Approx(1));
    // An exchange operator: where the profile measured exchange_seconds, that.
    ia::TimeModel with_exchange = fixed_only;
    with_exchange.profile.exchange_seconds = 3;
    CHECK(ia::carry_seconds(plan, with_exchange)[0] == Approx(3));
    // One iteration: every IA node and the carry's move.
    CHECK(ia::estimated_seconds(plan, fixed_only) == Approx(static_cast<double>(plan.size() + 1)));
    CHECK(ia::carry_seconds(plan, model(kInstant, kInstant))[0] == Approx(0).margin(1e-12));
}

TEST_CASE("estimated seconds: a carry copies what it keeps where a second carry takes its step",
          "[time]") {
    // X <- Y and Z <- Y (Y = relu(X)), or Z <- W (another step), on 2 sites: the maps keep every
    // tile where it starts, so each move keeps all of its site's 8 tiles of 32 bytes (256 bytes)
    // and moves nothing. The runtime moves kept tiles into the carried input, but copies them
    // where two carries take one step: read and written once at the memory rate, 512 s at 1 byte
    // per second.
    for (const bool shared : {true, false}) {
        ProgramBuilder b("loop", DType::F64);
        b.add_input("X", Shape{8, 8}, Shape{2, 2}, DType::F64, generated(), at("X"));
        b.add_input("Z", Shape{8, 8}, Shape{2, 2}, DType::F64, generated(), at("Z"));
        b.add_transform("Y", "X", KernelCall("relu"), at("Y"));
        b.add_transform("W", "Z", KernelCall("relu"), at("W"));
        REQUIRE_FALSE(b.try_set_repeat(3, {{"X", "Y", {}}, {"Z", shared ? "Y" : "W", {}}}, {}));
        b.add_output("W", "out.h5", "/W", at("out"));
        const Program p = b.finish();
        ia::Plan plan = ia::compile_initial(p, 2);
        ia::annotate_costs(plan);
        const std::vector<double> carry = ia::carry_seconds(plan, model(kInstant, kInstant, 1));
        REQUIRE(carry.size() == 2);
        for (const double seconds : carry) {
            INFO("carries of one step: " << shared);
            CHECK(seconds == Approx(shared ? 512 : 0).margin(1e-9));
        }
    }
}

TEST_CASE("estimated seconds: an exchange operator pays the fixed cost of one", "[time]") {
    // The runtime agrees twice on an exchange (its lists, its memory account) and sets up its
    // messages: a profile that measured it charges exchange_seconds to every enforcer and carry
    // move, operator_seconds to every other operator; one that did not, operator_seconds to all.
    const Program p = common_k();
    const ia::Plan plan = pinned(p, "local", "shuffle").plan;
    ia::TimeModel fixed_only = model(kInstant, kInstant);
    fixed_only.profile.operator_seconds = 1;
    fixed_only.profile.exchange_seconds = 5;
    const auto times = ia::operator_times(plan, fixed_only);
    REQUIRE(times.size() == plan.size());
    std::size_t exchanges = 0;
    for (const ia::IaNode& n : plan.nodes()) {
        INFO(n.id << " " << ia::op_name(n.op));
        const bool exchange = ia::is_enforcer(n.op);
        exchanges += exchange ? 1 : 0;
        CHECK(times[n.id].fixed == (exchange ? 5 : 1));
    }
    REQUIRE(exchanges == 1);  // the shuffle before the sum
    CHECK(ia::estimated_seconds(plan, fixed_only) == Approx(static_cast<double>(plan.size()) + 4));
    fixed_only.profile.exchange_seconds = 0;  // not measured
    for (const ia::OperatorTime& t : ia::operator_times(plan, fixed_only)) CHECK(t.fixed == 1);
}

TEST_CASE("estimated seconds: a skinny product is bound by its bytes, not its flops (roofline)",
          "[time]") {
    // 2x2 tiles of f64: a product's flops (16) at 16 flops per second take 1 s; its operands
    // and result (96 bytes) at 32 bytes per second take 3 s, so the bytes bound it.
    const Program p = common_k();
    const ia::TimeModel fast_flops = model(16, kInstant, 1e30);
    const ia::TimeModel slow_memory = model(16, kInstant, 32);
    const RankedPlan preagg = pinned(p, "local", "preagg");
    // Each site: two products; fast memory leaves the flops (2 s), slow memory 2 x 3 s plus the
    // combining sum's pass (96 bytes at 32 per second).
    CHECK(ia::estimated_seconds(preagg.plan, fast_flops) == Approx(2));
    CHECK(ia::estimated_seconds(preagg.plan, slow_memory) == Approx(6 + 3));
}

namespace {

kernels::KernelParams einsum_params(const std::string& spec) {
    kernels::KernelParams p;
    p.spec = spec;
    return p;
}

// Z = einsum(A, B) of one 2x2x2 f64 tile A (k at key `k_key`) and one 2x2 tile B (k, c).
Program one_tile_einsum(const std::string& spec, std::size_t k_key) {
    ProgramBuilder b("e", DType::F64);
    b.add_input("A", Shape{2, 2, 2}, Shape{2, 2, 2}, DType::F64, generated(), at("A"));
    b.add_input("B", Shape{2, 2}, Shape{2, 2}, DType::F64, generated(), at("B"));
    b.add_join("Z", "A", "B", {k_key}, {0}, KernelCall("einsum", einsum_params(spec)), at("Z"));
    b.add_output("Z", "out.h5", "/Z", at("out"));
    return b.finish();
}

}  // namespace

TEST_CASE("gemm permutes: the elements the kernel's GEMM plan moves outside GEMM", "[time]") {
    const Shape a[] = {Shape{2, 2, 2}, Shape{2, 2}};
    const ia::ProfileGemmPricing pricing(ia::default_machine_profile());
    const auto permuted = [&](const KernelCall& call, std::span<const Shape> shapes) {
        const auto plan = ia::einsum_gemm_plan(call, shapes, pricing, DType::F64);
        return plan ? plan->permuted_elements() : std::int64_t{-1};
    };
    // abk,kc->abc: A's rows (a, b) and its k are runs BLAS reads in place; so is the result.
    CHECK(permuted(KernelCall("einsum", einsum_params("abk,kc->abc")), a) == 0);
    // akb,kc->abc: k splits A's rows (a, b), so A (8 elements) is permuted first.
    CHECK(permuted(KernelCall("einsum", einsum_params("akb,kc->abc")), a) == 8);
    // abk,kc->acb: c splits the result's rows (a, b), so the product (8) is permuted into it.
    CHECK(permuted(KernelCall("einsum", einsum_params("abk,kc->acb")), a) == 8);
    // No GEMM plan (-1): an einsum with agg max runs the loop, and matmul is no einsum.
    kernels::KernelParams loop = einsum_params("akb,kc->abc");
    loop.agg_op = "max";
    CHECK(permuted(KernelCall("einsum", loop), a) == -1);
    const Shape m[] = {Shape{2, 2}, Shape{2, 2}};
    CHECK(permuted(KernelCall("matmul"), m) == -1);
}

TEST_CASE("estimated seconds: a TTGT contraction pays a pass over what it permutes", "[time]") {
    // Memory at 1 byte per second, everything else instant. The join's memory term: it writes
    // its product (8 f64, 64 bytes; no sum to fuse with), and with A permuted it also reads and
    // writes A's 8 elements (2 * 64 = 128 bytes). The roofline pass of the call (A 64 + B 32 +
    // Z 64 bytes) is its compute term in both.
    const ia::TimeModel memory_only = model(kInstant, kInstant, 1);
    // The join on one site (the program outlives its plans).
    auto join_time = [&](const Program& p) {
        const std::vector<RankedPlan> plans = optimizer::search_plans(p, 1);
        REQUIRE(!plans.empty());
        const ia::Plan& plan = plans.front().plan;
        for (const ia::IaNode& n : plan.nodes())
            if (n.op == ia::IaOp::LocalJoin) return ia::operator_times(plan, memory_only, n.id)[0];
        FAIL("no local join");
        return ia::OperatorTime{};
    };
    const Program abk = one_tile_einsum("abk,kc->abc", 2), akb = one_tile_einsum("akb,kc->abc", 1);
    const ia::OperatorTime in_place = join_time(abk);
    const ia::OperatorTime permuted = join_time(akb);
    CHECK(in_place.compute == Approx(160));
    CHECK(permuted.compute == Approx(160));
    CHECK(in_place.memory == Approx(64));
    CHECK(permuted.memory == Approx(64 + 128));
}

TEST_CASE("estimated seconds: a diagonal pays for what it reads of its tile, not all of it",
          "[time]") {
    const ia::TimeModel memory_only = model(kInstant, kInstant, 1);
    auto seconds = [&](const char* spec, const Shape& shape) {
        ProgramBuilder b("d", DType::F64);
        b.add_input("A", shape, shape, DType::F64, generated(), at("A"));
        kernels::KernelParams params;
        params.spec = spec;
        b.add_transform("D", "A", KernelCall("diagonal", params), at("D"));
        b.add_output("D", "out.h5", "/D", at("out"));
        const Program p = b.finish();  // the plans refer to it
        const auto plans = optimizer::search_plans(p, 1, {});
        REQUIRE_FALSE(plans.empty());
        return ia::estimated_seconds(plans.front().plan, memory_only);
    };
    // iij->ij of 4 x 4 x 5: rows of 5 contiguous elements, 4 x 5 read (160 bytes), 160 written.
    CHECK(seconds("iij->ij", Shape{4, 4, 5}) == Approx(160 + 160));
    // jkk->jk of 2 x 16 x 16 (4096 bytes): k steps 17 elements through the tile, so each of the
    // 32 elements read costs a line (64 bytes): 2048 read, 256 written.
    CHECK(seconds("jkk->jk", Shape{2, 16, 16}) == Approx(2048 + 256));
    // jkk->jk of 4 x 5 x 5: steps of 6 elements (48 bytes) for 20 elements, 960 bytes, more than
    // the tile's 800: the tile, once.
    CHECK(seconds("jkk->jk", Shape{4, 5, 5}) == Approx(800 + 160));
}
