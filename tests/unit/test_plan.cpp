// IA plans: the initial TRA -> IA compilation (Table 1), placement inference, the validator's
// accept and reject cases, and per-node costs checked against hand counts and brute force.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "ia/initial_plan.hpp"
#include "ia/peak_memory.hpp"
#include "ia/placement.hpp"
#include "ia/plan.hpp"
#include "ia/plan_costs.hpp"
#include "ia/plan_validator.hpp"
#include "optimizer/search.hpp"
#include "program_fixtures.hpp"
#include "tra/program_builder.hpp"

using namespace tra;
using namespace tra::ia;
using kernels::KernelCall;

namespace {

using tra::testing::at;
using tra::testing::generated;

// C = A B with A, B 8x8 in 2x2 tiles: 4x4 tuples each, 32-byte tiles.
Program matmul_program() {
    return tra::testing::tiled_matmul(4, 4, 4);
}

std::vector<std::string> ops(const Plan& p) {
    std::vector<std::string> out;
    for (const IaNode& n : p.nodes()) out.push_back(op_name(n.op) + ":" + p.origin(n.id).name);
    return out;
}

std::vector<std::string> placements(const Plan& p) {
    std::vector<std::string> out;
    for (const IaNode& n : p.nodes()) out.push_back(n.placement.str());
    return out;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("compile: matmul is bcast + local join, shuffle + local aggregate", "[plan][compile]") {
    Program prog = matmul_program();
    for (int S : {2, 3}) {
        Plan plan = compile_initial(prog, S);
        CHECK(ops(plan) == Strings{"input:A", "input:B", "bcast:A", "local_join:AB", "shuffle:AB",
                                   "local_aggregate:C"});
        CHECK(placements(plan) ==
              Strings{"Part[0]", "Part[0]", "All", "Part[1]", "Part[0, 2]", "Part[0, 1]"});
        CHECK(plan.node(2).inputs == std::vector<IaNodeId>{0});
        CHECK(plan.node(3).inputs == std::vector<IaNodeId>{2, 1});
        CHECK(plan.node(4).shuffle_dims == KeyPositions{0, 2});
        CHECK(plan.node(2).origin == *prog.find("A"));  // enforcers carry their input's origin
        CHECK(plan.node(3).rules == Strings{"compile"});
        CHECK(std::holds_alternative<JoinOp>(*plan.node(3).logical));
        CHECK_FALSE(plan.node(2).logical);
        CHECK(*plan.result(*prog.find("C")) == 5);
        CHECK_NOTHROW(validate(plan));
    }
}

TEST_CASE("costs: matmul exact and paper costs by hand and by brute force", "[plan][costs]") {
    Program prog = matmul_program();
    const std::int64_t tile = 32;  // 2x2 f64
    for (int S : {2, 3}) {
        Plan plan = compile_initial(prog, S);
        PlanTotals t = annotate_costs(plan);
        // bcast of A from Part[0]: every tuple to the S-1 sites lacking it.
        const Transfer& bc = plan.node(2).cost.transfer;
        CHECK(bc.payload_bytes == 16 * (S - 1) * tile);
        CHECK(bc.overhead_bytes == 16 * (S - 1) * 2 * 8 + S * (S - 1) * 8);
        CHECK(plan.node(2).cost.paper_floats == Approx(16.0 * 4 * S));

        // shuffle of AB (i, k, j) from Part[1] to Part[0, 2], counted directly.
        const Node& ab = prog.node(*prog.find("AB"));
        std::int64_t moved = 0;
        for (const Key& k : ab.keys)
            if (Placement::part({1}).home(k, S) != Placement::part({0, 2}).home(k, S)) ++moved;
        const Transfer& sh = plan.node(4).cost.transfer;
        CHECK(sh.tuples_moved == moved);
        CHECK(sh.payload_bytes == moved * tile);
        CHECK(plan.node(4).cost.paper_floats == Approx(64.0 * 4));
        if (S == 2) {
            // h(i, j) = (i + j + floor(j/2)) mod 2 vs k mod 2: half of the 4 k's per (i, j).
            CHECK(moved == 32);
            CHECK(sh.payload_bytes == 1024);
            CHECK(sh.overhead_bytes == 32 * 3 * 8 + 2 * 8);
        }
        CHECK(t.payload_bytes == bc.payload_bytes + sh.payload_bytes);
        CHECK(t.overhead_bytes == bc.overhead_bytes + sh.overhead_bytes);
        CHECK(t.paper_floats == Approx(64.0 * S + 256));
        // Each of the 64 output tuples is computed once (All x Part: one site): 2*2*2*2 each.
        CHECK(plan.node(3).cost.flops == 64 * 16);
        CHECK(t.flops == 64 * 16);
        CHECK(plan.node(0).cost.transfer.total_bytes() == 0);
    }
}

TEST_CASE("costs: resident bytes and the peak model", "[plan][costs]") {
    Program prog = matmul_program();
    Plan plan = compile_initial(prog, 2);
    PlanTotals t = annotate_costs(plan);
    CHECK(plan.node(0).cost.resident == std::vector<std::int64_t>{256, 256});  // 8 tuples each
    CHECK(plan.node(2).cost.resident == std::vector<std::int64_t>{512, 512});  // All
    CHECK(plan.node(3).cost.resident == std::vector<std::int64_t>{1024, 1024});
    // Largest live set plus the exchange buffers of the node running (ia/peak_memory.hpp). At the
    // bcast of A (#2): A, B and bcast A, plus A's 8 tuples (2 keys, 32-byte tiles) sent to the
    // other site and the other's 8 received, each as [8-byte count][8 x (16 + 32)].
    const auto b2 = exchange_buffers(plan.node(2).cost.transfer, 2);
    CHECK(b2 == std::vector<std::int64_t>{2 * (8 + 8 * 48), 2 * (8 + 8 * 48)});
    // At the shuffle (#4): AB before (#3) and after (#4) it, plus its buffers; A, B, bcast A
    // were freed after the join.
    const auto b4 = exchange_buffers(plan.node(4).cost.transfer, 2);
    const auto& r4 = plan.node(4).cost.resident;
    std::int64_t at_join = 256 + 512 + 1024;  // B, bcast A, AB (A was freed after the bcast)
    for (std::size_t s = 0; s < 2; ++s)
        CHECK(t.peak_per_site[s] ==
              std::max({256 + 256 + 512 + b2[s], at_join, 1024 + r4[s] + b4[s]}));
    CHECK(t.peak_bytes == std::max(t.peak_per_site[0], t.peak_per_site[1]));
}

TEST_CASE("costs: a fused join's products are not in the peak, its sums are", "[plan][costs]") {
    // A: 1 x 4 tiles, B: 4 x 8, 32-byte tiles, on 2 sites, bcast-left (the join is fused with
    // the sum). A starts on site 0 (Part[0]), B split by column: 16 tiles per site.
    ProgramBuilder b("mm", DType::F64);
    b.add_input("A", Shape{2, 8}, Shape{2, 2}, DType::F64, generated(), at("A"));
    b.add_input("B", Shape{8, 16}, Shape{2, 2}, DType::F64, generated(), at("B"));
    b.add_join("AB", "A", "B", {1}, {0}, KernelCall("matmul"), at("AB"));
    b.add_aggregate("C", "AB", {0, 2}, KernelCall("add"), at("C"));
    b.add_output("C", "out.h5", "/C", at("out"));
    const Program prog = b.finish();
    optimizer::SearchOptions options;
    options.top_k = 1000;
    bool found = false;
    for (const auto& r : optimizer::search_plans(prog, 2, options)) {
        if (r.name != "AB=bcast-left,C=local") continue;
        found = true;
        // At the bcast: A (4 tiles on site 0), B (16), bcast A (4), and site 0 sends the 4
        // tuples of A that site 1 receives, [8-byte count][4 x (16-byte key + 32)].
        const std::int64_t buffers = 8 + 4 * 48;
        const std::int64_t at_bcast[] = {(4 + 16 + 4) * 32 + buffers, (16 + 4) * 32 + buffers};
        // At the join: B, bcast A and C's 4 sums per site, 768 bytes. The join's 16 products
        // per site never exist as tiles; counted, they would make the peak 1152 on both sites.
        const std::int64_t at_join = (16 + 4 + 4) * 32;
        CHECK(r.totals.peak_per_site == std::vector<std::int64_t>{std::max(at_bcast[0], at_join),
                                                                  std::max(at_bcast[1], at_join)});
        CHECK(r.totals.peak_per_site == std::vector<std::int64_t>{968, 840});
    }
    CHECK(found);
}

TEST_CASE("compile: caller-given input placements are free and change the costs",
          "[plan][compile]") {
    Program prog = matmul_program();
    CompileOptions opt;
    opt.input_placements[*prog.find("A")] = Placement::all();
    opt.input_placements[*prog.find("B")] = Placement::part({1});
    Plan plan = compile_initial(prog, 3, opt);
    annotate_costs(plan);
    CHECK(plan.node(2).cost.transfer.total_bytes() == 0);   // bcast of an All relation
    CHECK(plan.node(3).placement == Placement::part({2}));  // B's column on output pos 2
    CHECK(plan.node(4).cost.paper_floats == Approx(256));
    opt.input_placements[*prog.find("B")] = Placement::unknown();
    CHECK_THROWS_AS(compile_initial(prog, 3, opt), Error);
}

TEST_CASE("compile: diag(X + Y) placements, Unknown after the rekey", "[plan][compile]") {
    ProgramBuilder b("diag", DType::F64);
    b.add_input("X", Shape{8, 8}, Shape{2, 2}, DType::F64, generated(), at("X"));
    b.add_input("Y", Shape{8, 8}, Shape{2, 2}, DType::F64, generated(), at("Y"));
    b.add_join("S", "X", "Y", {0, 1}, {0, 1}, KernelCall("add"), at("S"));
    b.add_filter("D", "S", "k0 == k1", at("D"));
    b.add_rekey("M", "D", "(i, j) -> (i)", at("M"));
    b.add_transform("G", "M", KernelCall("diag"), at("G"));
    b.add_output("G", "out.h5", "/G", at("out"));
    Program prog = b.finish();
    Plan plan = compile_initial(prog, 3);
    CHECK(ops(plan) == Strings{"input:X", "input:Y", "bcast:X", "local_join:S", "local_filter:D",
                               "map:M", "map:G"});
    CHECK(placements(plan) ==
          Strings{"Part[0]", "Part[0]", "All", "Part[0]", "Part[0]", "Unknown", "Unknown"});
    CHECK_NOTHROW(validate(plan));  // tuple-wise ops are valid over Unknown
    PlanTotals t = annotate_costs(plan);
    // The rekeyed diagonal stays where it was: (i, i) on i mod 3 -> (i) on i mod 3.
    CHECK(plan.node(6).cost.resident == std::vector<std::int64_t>{2 * 16, 1 * 16, 1 * 16});
    CHECK(t.payload_bytes == 16 * 2 * 32);
    CHECK(t.flops == 0);  // add is not a matrix product
}

TEST_CASE("compile: a join after a rekey shuffles its right operand", "[plan][compile]") {
    ProgramBuilder b("t", DType::F64);
    b.add_input("A", Shape{8, 8}, Shape{2, 2}, DType::F64, generated(), at("A"));
    b.add_input("B", Shape{8, 8}, Shape{2, 2}, DType::F64, generated(), at("B"));
    b.add_rekey("T", "B", "(i, j) -> (j, i)", at("T"));
    b.add_join("AT", "A", "T", {1}, {0}, KernelCall("matmul"), at("AT"));
    b.add_output("AT", "out.h5", "/AT", at("out"));
    Program prog = b.finish();
    Plan plan = compile_initial(prog, 2);
    CHECK(ops(plan) ==
          Strings{"input:A", "input:B", "map:T", "bcast:A", "shuffle:T", "local_join:AT"});
    CHECK(plan.node(4).placement == Placement::part({0}));
    annotate_costs(plan);
    // T = B^T keyed (j, i) sits on i mod 2 (B's Part[0]); Part[0] of T wants j mod 2.
    CHECK(plan.node(4).cost.transfer.tuples_moved == 8);
}

TEST_CASE("compile: concat is shuffle on the other key positions + local aggregate",
          "[plan][compile]") {
    ProgramBuilder b("c", DType::F64);
    b.add_input("A", Shape{8, 8}, Shape{2, 2}, DType::F64, generated(), at("A"));
    b.add_tile("H", "A", 1, 1, at("H"));    // (i, j, p), tiles [2, 1]
    b.add_concat("C", "H", 2, 1, at("C"));  // back to (i, j), tiles [2, 2]
    b.add_output("C", "out.h5", "/C", at("out"));
    Program prog = b.finish();
    Plan plan = compile_initial(prog, 2);
    CHECK(ops(plan) == Strings{"input:A", "map:H", "shuffle:H", "local_aggregate:C"});
    CHECK(placements(plan) == Strings{"Part[0]", "Part[0]", "Part[0, 1]", "Part[0, 1]"});
    CHECK(plan.node(1).map_arity == 2);
    CHECK(std::holds_alternative<ConcatOp>(*plan.node(3).logical));
    CHECK(plan.aggregate_by(plan.node(3)) == KeyPositions{0, 1});
    CHECK_NOTHROW(validate(plan));
}

TEST_CASE("validator: rejects hand-made invalid plans with the node, origin and reason",
          "[plan][validator]") {
    Program prog = matmul_program();
    const NodeId A = *prog.find("A"), B = *prog.find("B"), AB = *prog.find("AB"),
                 C = *prog.find("C");
    auto input = [&](NodeId origin, Placement p) {
        IaNode n;
        n.op = IaOp::Input;
        n.origin = origin;
        n.logical = prog.node(origin).op;
        n.placement = std::move(p);
        return n;
    };
    auto local = [&](IaOp op, NodeId origin, std::vector<IaNodeId> in, Placement p) {
        IaNode n;
        n.op = op;
        n.origin = origin;
        n.inputs = std::move(in);
        n.logical = prog.node(origin).op;
        n.placement = std::move(p);
        return n;
    };

    SECTION("a local join of two Part[0] inputs on [1] = [0]") {
        Plan plan(prog, 2);
        plan.add(input(A, Placement::part({0})));
        plan.add(input(B, Placement::part({0})));
        plan.add(local(IaOp::LocalJoin, AB, {0, 1}, Placement::part({0})));
        CHECK_THROWS_WITH(validate(plan),
                          Catch::Contains("IA node #2 (local_join producing 'AB')") &&
                              Catch::Contains("not co-located"));
    }
    SECTION("a co-shuffled join is accepted; aggregating its Part[1] output is not") {
        Plan plan(prog, 2);
        plan.add(input(A, Placement::part({1})));
        plan.add(input(B, Placement::part({0})));
        plan.add(local(IaOp::LocalJoin, AB, {0, 1}, Placement::part({1})));
        CHECK_NOTHROW(validate(plan));
        plan.add(local(IaOp::LocalAggregate, C, {2}, Placement::part({0, 1})));
        CHECK_THROWS_WITH(validate(plan), Catch::Contains("IA node #3 (local_aggregate") &&
                                              Catch::Contains("'C'") &&
                                              Catch::Contains("key position 1 is not grouped"));
    }
    SECTION("aggregating an All relation is valid and stays All") {
        Plan plan(prog, 3);
        plan.add(input(A, Placement::all()));
        plan.add(input(B, Placement::all()));
        plan.add(local(IaOp::LocalJoin, AB, {0, 1}, Placement::all()));
        plan.add(local(IaOp::LocalAggregate, C, {2}, Placement::all()));
        CHECK_NOTHROW(validate(plan));
    }
    SECTION("an input in Unknown makes the join's input invalid") {
        Plan plan(prog, 2);
        plan.add(input(A, Placement::all()));
        plan.add(input(B, Placement::part({0})));
        plan.add(local(IaOp::LocalJoin, AB, {0, 1}, Placement::part({1})));
        CHECK_NOTHROW(validate(plan));
        plan.mutable_node(1).placement = Placement::unknown();
        CHECK_THROWS_WITH(validate(plan), Catch::Contains("IA node #1 (input producing 'B')"));
    }
    SECTION("a grid needing more sites than S") {
        Plan plan(prog, 3);
        plan.add(input(A, Placement::grid(0, 1, 2, 2)));
        CHECK_THROWS_WITH(validate(plan), Catch::Contains("needs 4 sites, the plan has 3"));
    }
    SECTION("a stored placement that the operator does not produce") {
        Plan plan(prog, 2);
        plan.add(input(A, Placement::part({0})));
        IaNode bc;
        bc.op = IaOp::Bcast;
        bc.origin = A;
        bc.inputs = {0};
        bc.placement = Placement::part({0});
        plan.add(bc);
        CHECK_THROWS_WITH(validate(plan),
                          Catch::Contains("claims placement Part[0] but produces All"));
    }
    SECTION("an enforcer moving another relation") {
        Plan plan(prog, 2);
        plan.add(input(A, Placement::part({0})));
        IaNode bc;
        bc.op = IaOp::Bcast;
        bc.origin = B;
        bc.inputs = {0};
        bc.placement = Placement::all();
        plan.add(bc);
        CHECK_THROWS_WITH(validate(plan), Catch::Contains("must move its input's relation"));
    }
    SECTION("Plan::add refuses forward references") {
        Plan plan(prog, 2);
        CHECK_THROWS_AS(plan.add(local(IaOp::LocalFilter, A, {0}, Placement::all())), Error);
    }
}

TEST_CASE("validator: a local aggregate after a rekey (Unknown) is rejected", "[plan][validator]") {
    ProgramBuilder b("r", DType::F64);
    b.add_input("A", Shape{8, 8}, Shape{2, 2}, DType::F64, generated(), at("A"));
    b.add_rekey("T", "A", "(i, j) -> (j, i)", at("T"));
    b.add_aggregate("S", "T", {0}, KernelCall("add"), at("S"));
    b.add_output("S", "out.h5", "/S", at("out"));
    Program prog = b.finish();
    Plan plan(prog, 2);
    IaNode a;
    a.op = IaOp::Input;
    a.origin = 0;
    a.logical = prog.node(0).op;
    a.placement = Placement::part({0});
    plan.add(a);
    IaNode t;
    t.op = IaOp::Map;
    t.origin = 1;
    t.inputs = {0};
    t.logical = prog.node(1).op;
    t.placement = Placement::unknown();
    plan.add(t);
    IaNode s = t;
    s.op = IaOp::LocalAggregate;
    s.origin = 2;
    s.inputs = {1};
    s.logical = prog.node(2).op;
    s.placement = Placement::part({0});
    plan.add(s);
    CHECK_THROWS_WITH(validate(plan),
                      Catch::Contains("IA node #2 (local_aggregate producing 'S')") &&
                          Catch::Contains("Unknown"));
    // The initial compile shuffles first, so its plan is valid.
    Plan compiled = compile_initial(prog, 2);
    CHECK(ops(compiled) == Strings{"input:A", "map:T", "shuffle:T", "local_aggregate:S"});
    CHECK_NOTHROW(validate(compiled));
}
