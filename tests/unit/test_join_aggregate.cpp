// join_aggregate_tuples (a join fused with the sum consuming it) against the unfused join then
// aggregate of the reference evaluator. Inputs are small integers, so every sum is exact and
// the tiles must agree bit for bit whatever the order of additions; the fold order is the same
// anyway. And which joins are fused (ia::fused_joins), also asked from a node on.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ia/fused_joins.hpp"
#include "ia/last_uses.hpp"
#include "ia/operator_spec.hpp"
#include "optimizer/search.hpp"
#include "program_fixtures.hpp"
#include "runtime/join_aggregate.hpp"
#include "runtime/reference_evaluator.hpp"
#include "storage/generator.hpp"
#include "tra/program_builder.hpp"

using namespace tra;
using kernels::KernelCall;
using kernels::KernelParams;
using runtime::ReferenceEvaluator;

namespace {

StepSource at(const std::string& step) {
    StepSource s;
    s.step = SourceLocation{"f.yaml", 1, 1, step};
    return s;
}

InputSource integers(std::uint64_t seed) {
    storage::GeneratorSpec g;
    g.kind = storage::GeneratorSpec::Kind::Integers;
    g.lo = -4;
    g.hi = 4;
    g.seed = seed;
    InputSource s;
    s.generate = g;
    return s;
}

bool same_bits(const Tile& x, const Tile& y) {
    return x.dtype() == y.dtype() && x.shape() == y.shape() &&
           std::memcmp(x.raw(), y.raw(), x.bytes()) == 0;
}

// A [8, 6] in [4, 3] tiles, B [6, 10] in [3, 5]; AB = join on A's column and B's row tile
// index with `kernel`, then C = the sum of AB by `by` (positions of AB's key (i, k, j)).
void check_fused(const KernelCall& kernel, KeyPositions by, bool fusable, DType dtype) {
    ProgramBuilder b("fused", dtype);
    b.add_input("A", Shape{8, 6}, Shape{4, 3}, dtype, integers(1), at("A"));
    b.add_input("B", Shape{6, 10}, Shape{3, 5}, dtype, integers(2), at("B"));
    b.add_join("AB", "A", "B", {1}, {0}, kernel, at("AB"));
    b.add_aggregate("C", "AB", std::move(by), KernelCall("add"), at("C"));
    const Program p = b.finish();
    const auto& join = std::get<JoinOp>(p.node(2).op);
    const auto& agg = std::get<AggregateOp>(p.node(3).op);
    CHECK(ia::fusable_join_aggregate(join, agg) == fusable);
    ReferenceEvaluator ev(p);
    const auto fused =
        runtime::join_aggregate_tuples(p.node(2), join, p.node(3), agg, ev.evaluate(0).tuples,
                                       ev.evaluate(1).tuples, p.node(1).type.key_arity);
    const auto& want = ev.evaluate(3).tuples;
    REQUIRE(fused.size() == want.size());
    for (const auto& [k, t] : want) {
        INFO("group " << k.str());
        REQUIRE(fused.count(k) == 1);
        CHECK(same_bits(fused.at(k), t));
    }
}

}  // namespace

TEST_CASE("fused join and sum equals join then aggregate", "[join_aggregate]") {
    KernelParams mm;
    mm.spec = "ik,kj->ij";
    // einsum can accumulate only matrix products: this one takes the compute-then-add path.
    KernelParams max_plus = mm;
    max_plus.join_op = "add";
    max_plus.agg_op = "max";
    for (DType d : {DType::F64, DType::F32}) {
        INFO(name_of(d));
        check_fused(KernelCall("matmul"), {0, 2}, true, d);  // C = A B, groups of 2
        check_fused(KernelCall("matmul"), {2, 0}, true, d);  // the same, keyed (j, i)
        check_fused(KernelCall("einsum", mm), {0, 2}, true, d);
        check_fused(KernelCall("matmul"), {0}, true, d);        // a sum over k and j
        check_fused(KernelCall("matmul"), {0, 1, 2}, true, d);  // one product per group
        check_fused(KernelCall("einsum", max_plus), {0, 2}, true, d);
    }
}

TEST_CASE("a sum that is not add is not fused", "[join_aggregate]") {
    ProgramBuilder b("fused", DType::F64);
    b.add_input("A", Shape{8, 6}, Shape{4, 3}, DType::F64, integers(1), at("A"));
    b.add_input("B", Shape{6, 10}, Shape{3, 5}, DType::F64, integers(2), at("B"));
    b.add_join("AB", "A", "B", {1}, {0}, KernelCall("matmul"), at("AB"));
    b.add_aggregate("C", "AB", {0, 2}, KernelCall("max"), at("C"));
    const Program p = b.finish();
    CHECK_FALSE(ia::fusable_join_aggregate(std::get<JoinOp>(p.node(2).op),
                                           std::get<AggregateOp>(p.node(3).op)));
}

TEST_CASE("fused joins from a node on: the whole plan's pairs whose aggregate is from there on") {
    // The definition (fused_joins.hpp), written out: a join whose only reader, and last use,
    // is an aggregate it can accumulate into. CE = (A B) E: AB is summed by C (fusable), CE is
    // the output (a result: never fused); every plan of it on 2 and 3 sites, every `first`.
    const Program p = testing::tiled_matmul(2, 3, 2, 2);
    std::size_t pairs = 0;
    for (int sites : {2, 3}) {
        optimizer::SearchOptions options;
        options.top_k = 1000;
        for (const optimizer::RankedPlan& r : optimizer::search_plans(p, sites, options)) {
            const ia::Plan& plan = r.plan;
            const std::vector<ia::IaNodeId> last = ia::last_uses(plan);
            std::vector<std::optional<ia::IaNodeId>> want(plan.size());
            for (const ia::IaNode& c : plan.nodes()) {
                if (!ia::operator_spec(c.op).group_by || c.inputs.size() != 1) continue;
                const ia::IaNodeId j = c.inputs[0];
                int readers = 0;
                for (const ia::IaNode& n : plan.nodes())
                    readers += static_cast<int>(std::count(n.inputs.begin(), n.inputs.end(), j));
                const auto* join = std::get_if<JoinOp>(&plan.logical(j));
                const auto* agg = std::get_if<AggregateOp>(&plan.logical(c.id));
                if (ia::operator_spec(plan.node(j).op).joins && readers == 1 && last[j] == c.id &&
                    !plan.holds_partials(j) && join && agg &&
                    ia::fusable_join_aggregate(*join, *agg))
                    want[j] = c.id;
            }
            pairs += static_cast<std::size_t>(std::count_if(
                want.begin(), want.end(), [](const auto& f) { return f.has_value(); }));
            CAPTURE(r.name, sites);
            CHECK(ia::fused_joins(plan) == want);
            for (ia::IaNodeId first = 0; first <= plan.size(); ++first) {
                std::vector<std::optional<ia::IaNodeId>> from = want;
                for (auto& f : from)
                    if (f && *f < first) f.reset();
                CHECK(ia::fused_joins(plan, first) == from);
            }
        }
    }
    CHECK(pairs > 0);
}
