// The 3-D matrix multiply (`grid3` join, `preagg-grid` aggregate; optimizer/join_grid.hpp): the
// shape it chooses, the layered placements it emits, and its exact bytes against a count made
// here from the documented site functions (docs/cost-model.md), not from the cost code.
#include "rmm_fixtures.hpp"

using namespace tra;
using namespace tra::ia;
using namespace tra::rmm_testing;

namespace {

// C = A B with A (I x K tiles) and B (K x J tiles) of 2x2.
Program matmul(int I, int K, int J) {
    return joined(Shape{2 * I, 2 * K}, Shape{2 * K, 2 * J}, {1}, {0}, "matmul", {0, 2});
}

// The plans of `p` (alive while they are) pinned to the two strategies, both inputs starting on
// Part[0].
std::vector<RankedPlan> pinned(const Program& p, int S, const std::string& join_pin,
                               const std::string& aggregate_pin) {
    SearchOptions o = both_on(p, Placement::part({0}), Placement::part({0}));
    o.pins["AB"] = join_pin;
    if (!aggregate_pin.empty()) o.pins["C"] = aggregate_pin;
    return optimizer::search_plans(p, S, o);
}

std::vector<std::string> placements(const RankedPlan& r) {
    std::vector<std::string> out;
    for (const IaNode& n : r.plan.nodes()) out.push_back(n.placement.str());
    return out;
}

bool lists(const std::vector<std::string>& all, const std::string& placement) {
    return std::find(all.begin(), all.end(), placement) != all.end();
}

}  // namespace

TEST_CASE("grid3: the shape, the layered placements and the exact bytes", "[grid3]") {
    // 4 x 4 tiles each side at S = 8: pc|A| + pr|B| + pl|C| is 96 tiles on 2 x 2 x 2 and at
    // least 112 on every other factorization with two or more layers (1x2x4, 2x1x4, 1x4x2,
    // 4x1x2; 1x1x8 would need 8 blocks of k).
    const int S = 8;
    const Program p = matmul(4, 4, 4);
    auto plans = pinned(p, S, "grid3", "preagg-grid");
    REQUIRE(plans.size() == 1);
    const RankedPlan& r = plans[0];
    CHECK(r.name == "AB=grid3,C=preagg-grid");
    CHECK_NOTHROW(validate(r.plan));
    const auto all = placements(r);
    const Placement a_to =
        Placement::layered_grid(0, 1, 1, 2, 2, 2, Placement::Replicate::AlongRow);
    const Placement b_to =
        Placement::layered_grid(0, 1, 0, 2, 2, 2, Placement::Replicate::AlongColumn);
    CHECK(lists(all, a_to.str()));
    CHECK(lists(all, b_to.str()));
    CHECK(lists(all, "Grid[0 x 2 x 1 on 2x2x2]"));  // the products, layer from k
    CHECK(lists(all, "Grid[0 x 1 on 2x4]"));        // C's homes: the most square grid of 8

    // Bytes, counted here: A and B copies to their layered targets, then each (i, j) has one
    // partial per layer l (k = l and l + 2) on site 4l + 2(i mod 2) + (j mod 2), sent unless
    // that is its home 4(i mod 2) + (j mod 4).
    const std::int64_t a_moves =
        copies_received(p.node(*p.find("A")).keys, Placement::part({0}), a_to, S);
    const std::int64_t b_moves =
        copies_received(p.node(*p.find("B")).keys, Placement::part({0}), b_to, S);
    std::int64_t partials_sent = 0;
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            for (int l = 0; l < 2; ++l)
                if (4 * l + 2 * (i % 2) + (j % 2) != 4 * (i % 2) + (j % 4)) ++partials_sent;
    CHECK(a_moves == 4 * 4 * 2 - 4);  // two copies of each tile; Part[0] already holds 4
    CHECK(r.totals.payload_bytes == (a_moves + b_moves + partials_sent) * kTile);
}

TEST_CASE("grid3: where it does not apply", "[grid3]") {
    // One site has no second layer; one block of k has nothing to spread over layers.
    const Program square = matmul(4, 4, 4), one_block = matmul(4, 1, 4), three = matmul(2, 3, 2);
    CHECK_THROWS_WITH(pinned(square, 1, "grid3", ""), Catch::Contains("cannot pin 'AB'"));
    CHECK_THROWS_WITH(pinned(one_block, 4, "grid3", ""), Catch::Contains("cannot pin 'AB'"));
    // A prime site count: every site its own layer (1 x 1 x 3), when k has 3 blocks or more.
    auto plans = pinned(three, 3, "grid3", "");
    REQUIRE_FALSE(plans.empty());
    CHECK(lists(placements(plans[0]), "Grid[0 x 2 x 1 on 1x1x3]"));
    // Without layers on the product, the grid reduce of its partials has nothing to reduce.
    CHECK_THROWS_WITH(pinned(square, 4, "grid", "preagg-grid"), Catch::Contains("cannot pin 'C'"));
}
