// A loop's carry (ia/loop_carry.hpp) alone: the move of a carried step's result to where its
// input starts, with bytes counted by hand; what a loop keeps alive (ia/last_uses.hpp); and the
// peak model's room for the carry between iterations (ia/peak_memory.hpp).
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "ia/initial_plan.hpp"
#include "ia/last_uses.hpp"
#include "ia/loop_carry.hpp"
#include "ia/peak_memory.hpp"
#include "ia/plan_costs.hpp"
#include "ia/transfer.hpp"
#include "program_fixtures.hpp"
#include "tra/program_builder.hpp"

using namespace tra;
using namespace tra::ia;
using kernels::KernelCall;
using tra::testing::at;
using tra::testing::generated;

namespace {

KernelCall twice() {
    kernels::KernelParams p;
    p.factor = 2;
    return KernelCall("scale", p);
}

// x <- 2x, carried: X is 8x8 in 2x2 tiles (16 tuples of 32 bytes); with `constant`, an input C
// that is read once and added in (x <- 2x + c).
Program doubling(bool constant = false) {
    ProgramBuilder b("loop", DType::F64);
    b.add_input("X", Shape{8, 8}, Shape{2, 2}, DType::F64, generated(), at("X"));
    if (constant) {
        b.add_input("C", Shape{8, 8}, Shape{2, 2}, DType::F64, generated(), at("C"));
        b.add_transform("X2", "X", twice(), at("X2"));
        b.add_join("Y", "X2", "C", {0, 1}, {0, 1}, KernelCall("add"), at("Y"));
    } else {
        b.add_transform("Y", "X", twice(), at("Y"));
    }
    REQUIRE_FALSE(b.try_set_repeat(3, {{"X", "Y", {}}}, {}));
    b.add_output("Y", "out.h5", "/Y", at("out"));
    return b.finish();
}

}  // namespace

TEST_CASE("carry: placements that agree move nothing", "[loop][carry]") {
    Program prog = doubling();
    Plan plan = compile_initial(prog, 3);  // X on Part[0], the map keeps it there
    annotate_costs(plan);
    const std::vector<CarryMove> moves = carry_moves(plan);
    REQUIRE(moves.size() == 1);
    CHECK(moves[0].input == 0);
    CHECK(moves[0].step == *plan.result(*prog.find("Y")));
    CHECK(moves[0].transfer.total_bytes() == 0);
}

TEST_CASE("carry: a step's result moves to where its input starts, counted exactly",
          "[loop][carry]") {
    // Y on Part[0] (3 sites: keys (i, j) on i mod 3), X starting on All: every site lacks the
    // tuples of the other two sites' rows. 16 tuples, each to 2 sites: 32 copies of 32 bytes,
    // 2 key values each, and one count header per ordered pair of the 3 sites.
    Program prog = doubling();
    Plan plan = compile_initial(prog, 3);
    plan.mutable_node(0).placement = Placement::all();  // where the next iteration wants X
    const PlanTotals totals = annotate_costs(plan);
    const std::vector<CarryMove> moves = carry_moves(plan);
    REQUIRE(moves.size() == 1);
    CHECK(moves[0].transfer.payload_bytes == 32 * 32);
    CHECK(moves[0].transfer.overhead_bytes == 32 * 2 * 8 + 6 * 8);
    // The same move by the one transfer contract.
    const Transfer direct =
        exact_transfer(*plan.node(moves[0].step).cost.sites, 2, 32, Placement::all(), 3);
    CHECK(direct.payload_bytes == moves[0].transfer.payload_bytes);
    CHECK(direct.overhead_bytes == moves[0].transfer.overhead_bytes);
    // The plan's totals count the carry with the iteration it ends.
    std::int64_t body = 0;
    for (const IaNode& n : plan.nodes()) body += n.cost.transfer.payload_bytes;
    CHECK(totals.payload_bytes == body + 32 * 32);
}

TEST_CASE("carry: a loop keeps the inputs it reads once and the carried result", "[loop][carry]") {
    Program prog = doubling(true);
    Plan plan = compile_initial(prog, 2);
    annotate_costs(plan);
    const std::vector<IaNodeId> last = last_uses(plan);
    const IaNodeId x = 0, c = 1;
    REQUIRE(plan.origin(c).name == "C");
    CHECK(read_once(plan, plan.node(c)));
    CHECK_FALSE(read_once(plan, plan.node(x)));  // carried: its value changes
    CHECK(last[c] == plan.size());
    CHECK(last[x] < plan.size());
    CHECK(last[*plan.result(*prog.find("Y"))] == plan.size());
}

TEST_CASE("carry: the peak holds the carry's buffers and new tiles beside the live ones",
          "[loop][carry]") {
    Program prog = doubling();
    Plan plan = compile_initial(prog, 3);
    plan.mutable_node(0).placement = Placement::all();
    annotate_costs(plan);
    const std::vector<CarryMove> moves = carry_moves(plan);
    REQUIRE(moves.size() == 1);
    const std::vector<std::int64_t> scratch = carry_scratch(plan, moves);
    const std::vector<std::int64_t> buffers = exchange_buffers(moves[0].transfer, 3);
    for (std::size_t s = 0; s < 3; ++s) {
        CHECK(scratch[s] == buffers[s] + 16 * 32);  // X's new tiles: all 16 on every site
        // After the last node: Y (an output, alive) plus the carry.
        const std::int64_t y = plan.node(moves[0].step).cost.resident.at(s);
        CHECK(peak_per_site(plan).at(s) >= y + scratch[s]);
    }
}
