// The time model's exchanges (ia/exchange_time.hpp through ia::estimated_seconds): a site pays
// for what it sends and what it receives, whichever is more, plus a latency per message; what
// crosses to other hosts goes at the across-hosts rates and shares its host's link; bytes sent
// and received at once go at the duplex rate; an exchange copies what it keeps only where its
// input is read again. Every expected value is computed by hand in the comments.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

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

// The plan broadcasting A (pinned bcast-left) on 4 sites, A partitioned on its rows and B on its
// columns (broadcast_program's and all_to_all_program's); the plans refer to `p`.
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

TEST_CASE("estimated seconds: an all-to-all exchange is bound by the host's link", "[time]") {
    const Program p = all_to_all_program();
    const auto plans = broadcast_a(p);
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
    const auto plans = broadcast_a(p);
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
