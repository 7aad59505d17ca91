// What `tra run --verify` checks of each output, decided from the plan (ia/verification_plan.hpp),
// and the peak memory it adds (ia/peak_memory.hpp): kept operands live to the end, scratch after
// the last node. Expected values are hand counts.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ia/peak_memory.hpp"
#include "ia/verification_plan.hpp"
#include "optimizer/search.hpp"
#include "program_fixtures.hpp"
#include "tra/program_builder.hpp"

using namespace tra;
using namespace tra::ia;
using kernels::KernelCall;
using tra::testing::at;
using tra::testing::generated;

namespace {

// C = A B and D = relu(C): A 1 x 4 tiles, B 4 x 8, C 1 x 8, 32-byte tiles; the plan
// AB=bcast-left, C=local on 2 sites (the join fused with the sum, C's 8 tiles 4 per site).
// The program outlives the plan, which refers to it.
struct MatmulRelu {
    Program program = [] {
        ProgramBuilder b("mm", DType::F64);
        b.add_input("A", Shape{2, 8}, Shape{2, 2}, DType::F64, generated(), at("A"));
        b.add_input("B", Shape{8, 16}, Shape{2, 2}, DType::F64, generated(), at("B"));
        b.add_join("AB", "A", "B", {1}, {0}, KernelCall("matmul"), at("AB"));
        b.add_aggregate("C", "AB", {0, 2}, KernelCall("add"), at("C"));
        b.add_transform("D", "C", KernelCall("relu"), at("D"));
        b.add_output("C", "out.h5", "/C", at("outC"));
        b.add_output("D", "out.h5", "/D", at("outD"));
        return b.finish();
    }();
    Plan plan = [this] {
        optimizer::SearchOptions options;
        options.top_k = 1000;
        for (const auto& r : optimizer::search_plans(program, 2, options))
            if (r.name.rfind("AB=bcast-left,C=local", 0) == 0) return r.plan;
        FAIL("no plan AB=bcast-left,C=local");
        throw;
    }();
};

IaNodeId node_named(const Plan& plan, IaOp op, const std::string& name) {
    for (const IaNode& n : plan.nodes())
        if (n.op == op && plan.origin(n.id).name == name) return n.id;
    FAIL("no " + op_name(op) + " of " + name);
    throw;
}

}  // namespace

TEST_CASE("verification plan: Freivalds for a contraction, recomputing a map", "[verify]") {
    const MatmulRelu m;
    const Plan& plan = m.plan;
    const VerificationPlan v = plan_verification(plan);
    REQUIRE(v.checks.size() == 2);
    const OutputCheck& c = v.checks[0];
    CHECK(c.output == "C");
    CHECK(c.method == VerifyMethod::Freivalds);
    const IaNodeId join = node_named(plan, IaOp::LocalJoin, "AB");
    REQUIRE(c.join);
    CHECK(*c.join == join);
    CHECK(c.right_dim == 1);  // matmul: R's columns are the output's
    REQUIRE(c.left_dim);
    CHECK(*c.left_dim == 1);  // L is [m, k]
    const OutputCheck& d = v.checks[1];
    CHECK(d.output == "D");
    CHECK(d.method == VerifyMethod::Recompute);
    CHECK(!d.join);
    // Kept: the join's operands (bcast A, B) and the map's (C), sorted.
    std::vector<IaNodeId> kept = plan.node(join).inputs;
    kept.push_back(plan.node(d.node).inputs.at(0));
    std::sort(kept.begin(), kept.end());
    CHECK(v.kept == kept);
    // Scratch: D's tiles recomputed, 4 per site.
    CHECK(v.scratch_per_site == std::vector<std::int64_t>{4 * 32, 4 * 32});
}

TEST_CASE("peak memory: kept nodes live to the end, scratch comes after the last node",
          "[verify]") {
    const MatmulRelu m;
    const Plan& plan = m.plan;
    const std::vector<std::int64_t> plain = peak_per_site(plan);
    CHECK(peak_per_site(plan, {}, {}) == plain);
    // After the last node: C and D (4 tiles each per site) are alive, 256 bytes per site.
    const std::int64_t at_end = 8 * 32;
    CHECK(peak_per_site(plan, {}, {1000, 0}) ==
          std::vector<std::int64_t>{std::max(plain[0], at_end + 1000), plain[1]});
    // B (16 tiles per site) kept to the end as well.
    const IaNodeId b = node_named(plan, IaOp::Input, "B");
    CHECK(peak_per_site(plan, {b}, {1000, 1000}) ==
          std::vector<std::int64_t>{std::max(plain[0], at_end + 16 * 32 + 1000),
                                    std::max(plain[1], at_end + 16 * 32 + 1000)});
}
