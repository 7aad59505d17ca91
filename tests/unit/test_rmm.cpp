// The replicated ("3-D", RMM) join: when the `rmm` strategy applies, both cost models against
// hand-computed values, the validator's rejections, and plan files that express the replication
// (round trip, invalid hand edits refused at the node). Replication maps: test_replication.cpp.
#include "rmm_fixtures.hpp"

using namespace tra;
using namespace tra::ia;
using namespace tra::rmm_testing;  // with its test names (KernelCall, RankedPlan, at, ...)

TEST_CASE("rmm: the specs of a general join and when it applies", "[rmm]") {
    // A(i, k, l) ⋈ B(m, k, n) on A[1] = B[1]: output (i, k, l, m, n).
    const Program p = joined(Shape{6, 8, 4}, Shape{10, 8, 4}, {1}, {1}, "add");
    const Node &a = p.node(*p.find("A")), &b = p.node(*p.find("B"));
    const auto& op = std::get<JoinOp>(p.node(*p.find("AB")).op);
    CHECK_FALSE(rmm_problem(op, a, b));
    CHECK(rmm_left_replication(op, a, b).str() == "(k0, k1, k2, 0:5, 0:2)");
    CHECK(rmm_right_replication(op, a, b).str() == "(0:3, k1, 0:2, k0, k2)");
    CHECK(rmm_partition(op, a, b) == KeyPositions{0, 2, 3, 4});
    CHECK(rmm_local_join(op, 5).left_keys == KeyPositions{0, 1, 2, 3, 4});
    // A(i, k) ⋈ B(m, k), A B^T: B's positions are reordered into the output key (i, k, m).
    const Program nt = joined(Shape{6, 8}, Shape{10, 8}, {1}, {1}, "matmul_nt");
    const auto& ntop = std::get<JoinOp>(nt.node(*nt.find("AB")).op);
    CHECK(rmm_right_replication(ntop, nt.node(0), nt.node(1)).str() == "(0:3, k1, k0)");

    // The matmul: thesis 3.2's xDups = FRONT(B)[1], yDups = FRONT(A)[0].
    const Program mm = joined(Shape{6, 8}, Shape{8, 10}, {1}, {0}, "matmul");
    const auto& mop = std::get<JoinOp>(mm.node(*mm.find("AB")).op);
    const Node &ma = mm.node(*mm.find("A")), &mb = mm.node(*mm.find("B"));
    CHECK(rmm_left_replication(mop, ma, mb).str() == "(k0, k1, 0:5)");
    CHECK(rmm_right_replication(mop, ma, mb).str() == "(0:3, k0, k1)");
    CHECK(rmm_partition(mop, ma, mb) == KeyPositions{0, 2});

    auto strategies = [](const Program& prog) {
        SearchOptions o;
        o.top_k = 1000;
        return join_strategies(optimizer::search_plans(prog, 2, o));
    };
    CHECK(strategies(mm).count("rmm"));
    // No free position on the right (matrix-vector), on either side (element-wise), no join
    // keys at all (outer product): no rmm.
    const Program mv = joined(Shape{6, 8}, Shape{8}, {1}, {0}, "sub_row");
    const auto& mvop = std::get<JoinOp>(mv.node(*mv.find("AB")).op);
    CHECK(*rmm_problem(mvop, mv.node(0), mv.node(1)) ==
          "'B' has no key position besides the join keys");
    CHECK_FALSE(strategies(mv).count("rmm"));
    const Program ew = joined(Shape{6, 8}, Shape{6, 8}, {0, 1}, {0, 1}, "add");
    CHECK_FALSE(strategies(ew).count("rmm"));
    const Program outer = joined(Shape{6, 8}, Shape{4, 8}, {}, {}, "add");
    const auto& oop = std::get<JoinOp>(outer.node(*outer.find("AB")).op);
    CHECK(*rmm_problem(oop, outer.node(0), outer.node(1)) == "the join has no join keys");
    CHECK_FALSE(strategies(outer).count("rmm"));
}

TEST_CASE("rmm: matmul at S = 2, 3, 4 lists exactly the six join strategies", "[rmm]") {
    const Program p = matmul4();
    const Placement p0 = Placement::part({0});
    for (int S : {2, 3, 4}) {
        INFO("S = " << S);
        // Both inputs by rows (the thesis's RMM layout): nothing is co-located to begin with.
        CHECK(join_strategies(optimizer::search_plans(p, S, both_on(p, p0, p0))) ==
              std::set<std::string>{"bcast-left", "bcast-right", "cmm", "grid", "grid3", "rmm"});
    }
}

TEST_CASE("rmm: both cost models against hand-computed values", "[rmm]") {
    const Program p = matmul4();  // |A| = |B| = 16 tuples of 4 floats; xDups = yDups = 4
    const Placement p0 = Placement::part({0});
    const Node &a = p.node(*p.find("A")), &b = p.node(*p.find("B"));
    // Exact: A* leaves site h(i) for h(i, j), B* leaves h(k) for h(i, j). Counted by hand from
    // h(v; S) = sum v_i + i floor(v_i / S) mod S: at S = 2, A* moves the j in {1, 2} (32 of
    // 64), B* half of its k per (i, j) (32); at S = 3 A* moves j in {1, 2, 3} (48), B* 2 of 4 k
    // for the 5 (i, j) with h = 0 and 3 of 4 for the other 11 (43).
    const std::map<int, std::int64_t> by_hand = {{2, (32 + 32) * kTile}, {3, (48 + 43) * kTile}};
    for (int S : {2, 3, 4}) {
        INFO("S = " << S);
        const auto plans = optimizer::search_plans(p, S, both_on(p, p0, p0));
        const RankedPlan* r = named(plans, "AB=rmm,C=local");
        REQUIRE(r);
        CHECK_NOTHROW(validate(r->plan));
        // Paper: the maps cost 0, each shuffle its input's floats: xDups|A| + yDups|B|.
        CHECK(r->totals.paper_floats == Approx(4 * 16 * 4 + 4 * 16 * 4));
        const auto a_star = replicate_relation(a, Replication{{copy(0), copy(1), fresh(4)}});
        const auto b_star = replicate_relation(b, Replication{{fresh(4), copy(0), copy(1)}});
        const Placement target = Placement::part({0, 2});
        const std::int64_t copies =
            copies_received(a_star->relation.keys, Placement::part({0}), target, S) +
            copies_received(b_star->relation.keys, Placement::part({1}), target, S);
        CHECK(r->totals.payload_bytes == copies * kTile);
        if (by_hand.count(S)) CHECK(r->totals.payload_bytes == by_hand.at(S));
        // One matmul per output tuple: 64 pairs of 2x2x2 (16 flops each).
        CHECK(r->totals.flops == 64 * 16);
        // The plan's shape: two free maps, two shuffles to Part[0, 2], an all-position join,
        // and a local k-sum.
        const IaNode& join = r->plan.node(r->plan.size() - 2);
        CHECK(join.op == IaOp::LocalJoin);
        CHECK(join.placement == target);
        CHECK(std::get<JoinOp>(*join.logical).left_keys == KeyPositions{0, 1, 2});
        CHECK(r->plan.node(r->plan.size() - 1).op == IaOp::LocalAggregate);
    }
}

TEST_CASE("rmm: the validator rejects wrong replicated joins", "[rmm]") {
    const Program p = matmul4();
    const Placement p0 = Placement::part({0});
    SearchOptions o = both_on(p, p0, p0);
    o.pins["AB"] = "rmm";
    const Plan good = optimizer::search_plans(p, 2, o).at(0).plan;
    CHECK_NOTHROW(validate(good));
    // Node ids of the plan: 0 A, 1 B, 2 A*, 3 shuffle A*, 4 B*, 5 shuffle B*, 6 join, 7 sum.
    REQUIRE(good.node(2).replicated);
    REQUIRE(good.node(6).op == IaOp::LocalJoin);
    auto rejects = [](const Plan& plan, const std::string& what) {
        try {
            validate(plan);
            FAIL("accepted");
        } catch (const Error& e) {
            CHECK_THAT(e.what(), Catch::Contains(what));
            CHECK(e.exit_code() == 2);
        }
    };
    SECTION("too few copies of A") {
        Plan bad = good;
        const Node& a = p.node(*p.find("A"));
        bad.mutable_node(2).replicated =
            replicate_relation(a, Replication{{copy(0), copy(1), fresh(3)}});
        bad.mutable_node(2).map_arity = 3;
        bad.mutable_node(3).replicated = bad.node(2).replicated;
        rejects(bad,
                "IA node #6 (local_join producing 'AB'): its left input holds 'A' "
                "replicated as (k0, k1, 0:3), the replicated join needs (k0, k1, 0:4)");
    }
    SECTION("a map arity that is not the replication's") {
        Plan bad = good;
        bad.mutable_node(2).map_arity = 2;
        rejects(bad, "IA node #2 (map producing 'A'): replication (k0, k1, 0:4) makes 4 copies");
    }
    SECTION("only one side replicated") {
        Plan bad = good;
        bad.mutable_node(6).inputs = {3, 1};
        rejects(bad,
                "IA node #6 (local_join producing 'AB'): a replicated join needs both "
                "operands replicated");
    }
    SECTION("the replicated sides not co-located") {
        Plan bad = good;
        bad.mutable_node(5).inputs = {4};  // keep B* where the map left it (Part[1])
        bad.mutable_node(5).shuffle_dims = {1};
        bad.mutable_node(5).placement = Placement::part({1});
        rejects(bad,
                "IA node #6 (local_join producing 'AB'): replicated inputs are not "
                "co-located");
    }
    SECTION("an aggregate reading a replicated relation") {
        Plan bad = good;
        bad.mutable_node(7).inputs = {3};
        rejects(bad,
                "IA node #7 (local_aggregate producing 'C'): its input #3 holds a "
                "replicated relation");
    }
}

TEST_CASE("rmm: plan files express the replication, round trip and refuse bad edits", "[rmm]") {
    testing::TempDir dir("rmm");
    const std::string wf =
        dir.write("mm.yaml",
                  "name: mm\n"
                  "inputs:\n"
                  "  A: {shape: [8, 8], tile: [2, 2], generate: {uniform: [-1, 1], seed: 1}}\n"
                  "  B: {shape: [8, 8], tile: [2, 2], generate: {uniform: [-1, 1], seed: 2}}\n"
                  "program:\n"
                  "  - AB: {join: [A, B], on: [[1], [0]], kernel: matmul}\n"
                  "  - C:  {aggregate: AB, by: [0, 2], kernel: add}\n"
                  "outputs:\n"
                  "  C: {file: out/C.h5}\n");
    const Program program = workflow::load_workflow(wf);
    for (int S : {1, 2, 3, 4}) {
        INFO("S = " << S);
        SearchOptions o;
        o.pins["AB"] = "rmm";
        const RankedPlan r = optimizer::search_plans(program, S, o).at(0);
        const std::string path = dir / "p.yaml";
        workflow::save_plan_file(path, r.plan, wf, r.name);
        workflow::LoadedPlan loaded = workflow::load_plan_file(path);
        REQUIRE(loaded.plan.size() == r.plan.size());
        for (IaNodeId i = 0; i < r.plan.size(); ++i) {
            const IaNode &x = r.plan.node(i), &y = loaded.plan.node(i);
            CHECK(x.placement == y.placement);
            CHECK(x.map_arity == y.map_arity);
            CHECK(static_cast<bool>(x.replicated) == static_cast<bool>(y.replicated));
            if (x.replicated) CHECK(x.replicated->spec == y.replicated->spec);
        }
        const PlanTotals t = annotate_costs(loaded.plan);
        CHECK(t.payload_bytes == r.totals.payload_bytes);
        CHECK(t.overhead_bytes == r.totals.overhead_bytes);
        CHECK(t.paper_floats == r.totals.paper_floats);
        CHECK(t.peak_per_site == r.totals.peak_per_site);
        CHECK(t.flops == r.totals.flops);
    }

    // Hand edits of the S = 2 plan, each refused at its node with exit code 2.
    SearchOptions o;
    o.pins["AB"] = "rmm";
    const RankedPlan r = optimizer::search_plans(program, 2, o).at(0);
    std::ostringstream text;
    workflow::write_plan_file(text, r.plan, wf, r.name, dir / "p.yaml");
    auto refused = [&](const std::string& from, const std::string& to, const std::string& what) {
        std::string t = text.str();
        const auto at = t.find(from);
        REQUIRE(at != std::string::npos);
        const std::string p = dir.write("bad.yaml", t.replace(at, from.size(), to));
        INFO(from << " -> " << to);
        try {
            workflow::load_plan_file(p);
            FAIL("loaded");
        } catch (const Error& e) {
            CHECK_THAT(e.what(), Catch::Contains(what));
            CHECK(e.exit_code() == 2);
        }
    };
    refused("arity: 4, replicate: \"(k0, k1, 0:4)\"", "arity: 3, replicate: \"(k0, k1, 0:3)\"",
            "node #6 (local_join producing 'AB'): its left input holds 'A' replicated as "
            "(k0, k1, 0:3), the replicated join needs (k0, k1, 0:4)");
    refused("replicate: \"(k0, k1, 0:4)\"", "replicate: \"(k0, k5, 0:4)\"",
            "node #2 (map producing 'A'): bad replication (k0, k5, 0:4) of 'A': k5 is outside");
    refused("replicate: \"(k0, k1, 0:4)\"", "replicate: \"(k0, k1, 0..4)\"",
            "node #2 (map producing 'A'): bad replication '(k0, k1, 0..4)'");
    refused("arity: 4, replicate: \"(k0, k1, 0:4)\"", "replicate: \"(k0, k1, 0:999999999)\"",
            "node #2 (map producing 'A'): replication (k0, k1, 0:999999999): 0:999999999 exceeds "
            "every extent of the workflow's relations (at most 4)");
    refused("arity: 4, replicate: \"(k0, k1, 0:4)\"", "arity: 2, replicate: \"(k0, k1, 0:4)\"",
            "node #2 (map producing 'A'): replication (k0, k1, 0:4) has arity 4, not 2");
}

TEST_CASE("rmm: an operand after a rekey (Unknown placement) is traced exactly", "[rmm]") {
    testing::TempDir dir("rmm_rekey");
    const std::string wf =
        dir.write("rk.yaml",
                  "name: rk\n"
                  "inputs:\n"
                  "  A: {shape: [8, 6], tile: [2, 2], generate: {uniform: [-1, 1], seed: 1}}\n"
                  "  B: {shape: [8, 10], tile: [2, 2], generate: {uniform: [-1, 1], seed: 2}}\n"
                  "program:\n"
                  "  - At: {rekey: A, key: \"(i, k) -> (k, i)\"}\n"
                  "  - T:  {transform: At, kernel: transpose}\n"
                  "  - AB: {join: [T, B], on: [[1], [0]], kernel: matmul}\n"
                  "  - C:  {aggregate: AB, by: [0, 2], kernel: add}\n"
                  "outputs:\n"
                  "  C: {file: out/C.h5}\n");
    const Program p = workflow::load_workflow(wf);
    const int S = 3;
    SearchOptions o = both_on(p, Placement::part({0}), Placement::part({0}));
    o.pins["AB"] = "rmm";
    const RankedPlan r = optimizer::search_plans(p, S, o).at(0);
    CHECK(r.plan.node(4).placement == Placement::unknown());  // T* after the rekey
    // T(t0, t1) = A(t1, t0) stays on A's site t1 mod 3; T*(t0, t1, j) with it, then to
    // h(t0, j). B(b0, j) is on b0 mod 3; B*(t0, b0, j) with it, then to h(t0, j).
    std::int64_t moved = 0;
    for (std::int64_t t0 = 0; t0 < 3; ++t0)
        for (std::int64_t x = 0; x < 4; ++x)  // t1 for T*, b0 for B*: both extent 4
            for (std::int64_t j = 0; j < 5; ++j)
                if (part_site(std::vector<std::int64_t>{t0, j}, S) != x % S) moved += 2;
    CHECK(r.totals.payload_bytes == moved * kTile);
}
