// The beam search's frontiers (optimizer/beam_frontier.hpp): which relations are still to be read
// after each step, and when two partial plans hold the same IA nodes of them.
#include <catch2/catch.hpp>
#include <vector>

#include "ia/placement.hpp"
#include "ia/plan.hpp"
#include "optimizer/beam_frontier.hpp"
#include "optimizer/emit.hpp"
#include "optimizer/search.hpp"
#include "program_fixtures.hpp"

using namespace tra;
using ia::Placement;

namespace {

std::vector<NodeId> needed_in_order(const Program& p) {
    std::vector<NodeId> order;
    for (NodeId id = 0; id < p.nodes.size(); ++id)
        if (p.node(id).needed) order.push_back(id);
    return order;
}

// A plan of the matmul fixture with its inputs placed, in the order given.
ia::Plan inputs_placed(const Program& p, std::vector<std::pair<const char*, Placement>> inputs) {
    ia::Plan plan(p, 3);
    for (const auto& [name, placement] : inputs) {
        const NodeId id = *p.find(name);
        plan.set_result(id, optimizer::emit_input(plan, id, placement));
    }
    return plan;
}

}  // namespace

TEST_CASE("beam frontier: relations live after each step", "[search]") {
    // A, B, AB = join(A, B), C = sum(AB); C is the output.
    const Program p = tra::testing::tiled_matmul(3, 4, 5);
    const std::vector<NodeId> order = needed_in_order(p);
    REQUIRE(order.size() == 4);
    const NodeId a = *p.find("A"), b = *p.find("B"), ab = *p.find("AB"), c = *p.find("C");
    const auto live = optimizer::live_after_each_step(p, order);
    REQUIRE(live.size() == 4);
    CHECK(live[0].ids() == std::vector<NodeId>{a});
    CHECK(live[1].ids() == std::vector<NodeId>{a, b});
    CHECK(live[2].ids() == std::vector<NodeId>{ab});  // A and B are read by no later step
    CHECK(live[3].ids() == std::vector<NodeId>{c});   // the output, read after the last step
    CHECK(live[2].contains(ab));
    CHECK_FALSE(live[2].contains(a));
}

TEST_CASE("beam frontier: alike exactly when the live relations' nodes are", "[search]") {
    const Program p = tra::testing::tiled_matmul(3, 4, 5);
    const NodeId a = *p.find("A"), b = *p.find("B");
    const ia::Plan p00 =
        inputs_placed(p, {{"A", Placement::part({0})}, {"B", Placement::part({0})}});
    const ia::Plan p01 =
        inputs_placed(p, {{"A", Placement::part({0})}, {"B", Placement::part({1})}});
    const ia::Plan p10 =
        inputs_placed(p, {{"A", Placement::part({1})}, {"B", Placement::part({0})}});
    // The same nodes placed in the other order.
    const ia::Plan p00_reversed =
        inputs_placed(p, {{"B", Placement::part({0})}, {"A", Placement::part({0})}});
    using optimizer::frontier_signature;
    const optimizer::LiveRelations both({a, b}, p.nodes.size()), only_b({b}, p.nodes.size());
    REQUIRE(frontier_signature(p00, both));
    CHECK(frontier_signature(p00, both) == frontier_signature(p00_reversed, both));
    CHECK(frontier_signature(p00, both) != frontier_signature(p01, both));
    CHECK(frontier_signature(p00, both) != frontier_signature(p10, both));
    // Where only B is still to be read, A's placement no longer matters.
    CHECK(frontier_signature(p00, only_b) == frontier_signature(p10, only_b));
    CHECK(frontier_signature(p00, only_b) != frontier_signature(p01, only_b));
    // Nothing live: nothing to compare.
    CHECK_FALSE(frontier_signature(p00, optimizer::LiveRelations({}, p.nodes.size())));
}
