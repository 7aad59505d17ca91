// ia::estimated_seconds (the time model): per operator, the busiest site's compute, its
// communication (sent or received, whichever is more, plus latencies) and its memory passes, so
// a plan that moves nothing because one site computes everything (a replicated join with one
// output tile) is seen to be slower than a balanced pre-aggregation that moves a little.
// Every expected value is computed by hand in the comments.
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
#include "tra/program_builder.hpp"

using namespace tra;
using kernels::KernelCall;
using optimizer::RankedPlan;
using tra::testing::at;
using tra::testing::generated;

namespace {

// C = A B, A one row of k_tiles tiles and B one column of k_tiles tiles (2x2 f64 tiles: 32
// bytes, 16 flops per tile product): one output tile. `product` is the join's tile kernel.
Program common_k(std::int64_t k_tiles = 4, const KernelCall& product = KernelCall("matmul")) {
    ProgramBuilder b("k", DType::F64);
    b.add_input("A", Shape{2, 2 * k_tiles}, Shape{2, 2}, DType::F64, generated(), at("A"));
    b.add_input("B", Shape{2 * k_tiles, 2}, Shape{2, 2}, DType::F64, generated(), at("B"));
    b.add_join("AB", "A", "B", {1}, {0}, product, at("AB"));
    b.add_aggregate("C", "AB", {0, 2}, KernelCall("add"), at("C"));
    b.add_output("C", "out.h5", "/C", at("out"));
    return b.finish();
}

// The plan with these pins, A and B partitioned on k (tiles k = 0, 2 on site 0; 1, 3 on 1).
RankedPlan pinned(const Program& p, const std::string& join, const std::string& aggregate) {
    optimizer::SearchOptions o;
    o.pins = {{"AB", join}, {"C", aggregate}};
    o.input_placements[*p.find("A")] = ia::Placement::part({1});
    o.input_placements[*p.find("B")] = ia::Placement::part({0});
    auto plans = optimizer::search_plans(p, 2, o);
    REQUIRE(plans.size() == 1);
    return plans.front();
}

constexpr double kInstant = 1e30;  // a rate that makes its term vanish

// A profile with one flop rate for every call (gemm and loop), one link on and across hosts,
// and no fixed costs unless given.
ia::TimeModel model(double flops, double bytes, double memory = kInstant, double latency = 0,
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

}  // namespace

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

namespace {

// A is one 2x2 tile on site 0; B is four column tiles, one per site of 4; AB = A B broadcasts
// A. `a_is_output`: A is also written, so read again after the broadcast.
Program broadcast_program(bool a_is_output = false) {
    ProgramBuilder b("bc", DType::F64);
    b.add_input("A", Shape{2, 2}, Shape{2, 2}, DType::F64, generated(), at("A"));
    b.add_input("B", Shape{2, 8}, Shape{2, 2}, DType::F64, generated(), at("B"));
    b.add_join("AB", "A", "B", {1}, {0}, KernelCall("matmul"), at("AB"));
    b.add_output("AB", "out.h5", "/AB", at("out"));
    if (a_is_output) b.add_output("A", "out.h5", "/A", at("outA"));
    return b.finish();
}

// Its plan broadcasting A (pinned bcast-left) on 4 sites; the plans refer to `p`.
std::vector<RankedPlan> broadcast_a(const Program& p) {
    optimizer::SearchOptions o;
    o.pins = {{"AB", "bcast-left"}};
    o.input_placements[*p.find("A")] = ia::Placement::part({0});
    o.input_placements[*p.find("B")] = ia::Placement::part({1});
    return optimizer::search_plans(p, 4, o);
}

}  // namespace

TEST_CASE("estimated seconds: a broadcast's sender pays for every copy it sends", "[time]") {
    const Program p = broadcast_program();
    const auto plans = broadcast_a(p);
    REQUIRE(plans.size() == 1);
    // Site 0 sends A to sites 1-3: 3 * (32 tile + 2 keys * 8) + 3 counts * 8 = 168 bytes in 3
    // messages; each receiver gets 56 bytes in 1. Charging received bytes only would say 56.
    CHECK(ia::estimated_seconds(plans[0].plan, model(kInstant, 1)) == Approx(168));
    // With a 10 s latency the sender also pays 3 of them, a receiver 1.
    CHECK(ia::estimated_seconds(plans[0].plan, model(kInstant, 1, kInstant, 10)) ==
          Approx(168 + 30));
    // The runtime's own cost per message adds to the latency of each, on the sender's 3 too.
    ia::TimeModel own = model(kInstant, 1, kInstant, 10);
    own.profile.message_seconds = 5;
    CHECK(ia::estimated_seconds(plans[0].plan, own) == Approx(168 + 3 * (10 + 5)));
    // Two sites per host, only the network slow: 2 of site 0's 3 peers are on the other host,
    // so 2/3 of its 168 bytes cross (112 s). Host 0's link carries the same 112 bytes out, host
    // 1's carries 2/3 of each of its two sites' 56 received bytes in (74.7): the site decides.
    ia::TimeModel hosts = model(kInstant, kInstant);
    hosts.profile.across_hosts = {true, 0, 1};
    hosts.host_of_site = ia::TimeModel::blocked_hosts(4, 2);
    CHECK(ia::estimated_seconds(plans[0].plan, hosts) == Approx(112));
    // One site on host 0, three on host 1: site 0's 168 bytes all cross.
    hosts.host_of_site = {0, 1, 1, 1};
    CHECK(ia::estimated_seconds(plans[0].plan, hosts) == Approx(168));
}

TEST_CASE("estimated seconds: traffic to other hosts goes at the across-hosts rates", "[time]") {
    const Program p = common_k();
    const RankedPlan preagg = pinned(p, "local", "preagg");
    ia::TimeModel m = model(kInstant, kInstant);
    m.profile.across_hosts = {true, 0, 1};
    // Both sites on one host: the 56 bytes travel instantly.
    CHECK(ia::estimated_seconds(preagg.plan, m) == Approx(0).margin(1e-9));
    // One site per host: all of it crosses at 1 byte per second.
    m.host_of_site = ia::TimeModel::blocked_hosts(2, 1);
    CHECK(ia::estimated_seconds(preagg.plan, m) == Approx(56));
    CHECK(ia::TimeModel::blocked_hosts(5, 2) == std::vector<int>{0, 0, 1, 1, 2});
}

TEST_CASE("estimated seconds: the sites of a host share its network link", "[time]") {
    // C = A B with A's 4 column tiles and B's 4 row tiles partitioned over 4 sites, summed
    // apart (join, shuffle of the 4 products to the home of (0, 0), sum): sites 1, 2 and 3 each
    // send one 32-byte product with its 3 key positions (24) and a count (8): 64 bytes.
    const Program p = common_k();
    optimizer::SearchOptions o;
    o.pins = {{"AB", "local"}, {"C", "shuffle"}};
    o.input_placements[*p.find("A")] = ia::Placement::part({1});
    o.input_placements[*p.find("B")] = ia::Placement::part({0});
    const auto plans = optimizer::search_plans(p, 4, o);
    REQUIRE(plans.size() == 1);
    ia::TimeModel m = model(kInstant, kInstant);
    m.profile.across_hosts = {true, 0, 1};
    // Site 0 alone on host 0: each sender has 1 peer of 3 across (64 / 3 each), but host 1's
    // link carries all 3 products out: 192 bytes. Site 0 receives the same 192 across.
    m.host_of_site = {0, 1, 1, 1};
    CHECK(ia::estimated_seconds(plans[0].plan, m) == Approx(192));
    // Sites 0 and 1 on host 0: the products of sites 2 and 3 cross (2/3 of 64 each by the share
    // of peers, 85.3 over host 1's link); site 0 receives 3 x 64 with 2/3 across: 128.
    m.host_of_site = {0, 0, 1, 1};
    CHECK(ia::estimated_seconds(plans[0].plan, m) == Approx(128));
}

namespace {

// AB = A B with A's 4 row tiles, one per site, broadcast to every site: each site sends its
// tile to the other 3 and receives 3: 3 * (32 + 2 keys * 8) + 3 counts * 8 = 168 bytes each way.
Program all_to_all_program() {
    ProgramBuilder b("all", DType::F64);
    b.add_input("A", Shape{8, 2}, Shape{2, 2}, DType::F64, generated(), at("A"));
    b.add_input("B", Shape{2, 8}, Shape{2, 2}, DType::F64, generated(), at("B"));
    b.add_join("AB", "A", "B", {1}, {0}, KernelCall("matmul"), at("AB"));
    b.add_output("AB", "out.h5", "/AB", at("out"));
    return b.finish();
}

std::vector<RankedPlan> broadcast_to_all(const Program& p) {
    optimizer::SearchOptions o;
    o.pins = {{"AB", "bcast-left"}};
    o.input_placements[*p.find("A")] = ia::Placement::part({0});
    o.input_placements[*p.find("B")] = ia::Placement::part({1});
    return optimizer::search_plans(p, 4, o);
}

}  // namespace

TEST_CASE("estimated seconds: an all-to-all exchange is bound by the host's link", "[time]") {
    const Program p = all_to_all_program();
    const auto plans = broadcast_to_all(p);
    REQUIRE(plans.size() == 1);
    ia::TimeModel m = model(kInstant, kInstant);
    m.profile.across_hosts = {true, 0, 1};
    m.host_of_site = ia::TimeModel::blocked_hosts(4, 2);
    // Per site 2/3 of 168 bytes cross (112), but both sites of a host send theirs over the one
    // link: 224.
    CHECK(ia::estimated_seconds(plans[0].plan, m) == Approx(224));
}

TEST_CASE("estimated seconds: bytes sent and received at once go at the duplex rate", "[time]") {
    const Program p = all_to_all_program();
    const auto plans = broadcast_to_all(p);
    REQUIRE(plans.size() == 1);
    // Every site sends and receives 168 bytes at once. Without a duplex rate both directions run
    // at the one-way rate: 168 s at 1 byte per second.
    ia::TimeModel m = model(kInstant, 1);
    CHECK(ia::estimated_seconds(plans[0].plan, m) == Approx(168));
    // Half a byte per second each way while both directions carry (shared memory's two copies).
    m.profile.same_host.duplex_bytes_per_second = 0.5;
    CHECK(ia::estimated_seconds(plans[0].plan, m) == Approx(336));
    // Two sites per host, the network slow (1 byte per second one way, 0.25 each way at once):
    // a host's link carries 224 bytes out and 224 in at once: 896 s; each site's own 112 bytes
    // each way across take 448 s.
    ia::TimeModel hosts = model(kInstant, kInstant);
    hosts.profile.across_hosts = {true, 0, 1, 0.25};
    hosts.host_of_site = ia::TimeModel::blocked_hosts(4, 2);
    CHECK(ia::estimated_seconds(plans[0].plan, hosts) == Approx(896));
    // A broadcast from one site only sends: site 0's 168 bytes at the one-way rate whatever the
    // duplex rate; each receiver's 56 likewise.
    const Program b = broadcast_program();
    const auto from_one = broadcast_a(b);
    REQUIRE(from_one.size() == 1);
    CHECK(ia::estimated_seconds(from_one[0].plan, m) == Approx(168));
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

TEST_CASE("operator times: an exchange copies what it keeps where its input is read again",
          "[time]") {
    // A is one 2x2 tile on site 0 (32 bytes), broadcast to the 4 sites for AB = A B; site 0
    // keeps its A. Where A is also an output, the runtime reads it again after the broadcast and
    // copies the kept tile (runtime/execution.cpp, keep_local): 2 x 32 bytes at the memory rate
    // of 1 byte/s on site 0. Otherwise the tile is moved: no memory pass.
    for (const bool a_is_output : {false, true}) {
        INFO("A is an output: " << a_is_output);
        const Program p = broadcast_program(a_is_output);
        const auto plans = broadcast_a(p);
        REQUIRE(plans.size() == 1);
        const ia::Plan& plan = plans[0].plan;
        const std::vector<ia::OperatorTime> times =
            ia::operator_times(plan, model(kInstant, kInstant, 1));
        int enforcers = 0;
        for (ia::IaNodeId id = 0; id < plan.size(); ++id) {
            if (!ia::is_enforcer(plan.node(id).op)) continue;
            ++enforcers;
            CHECK(times[id].memory == Approx(a_is_output ? 64 : 0));
        }
        CHECK(enforcers == 1);
    }
}
