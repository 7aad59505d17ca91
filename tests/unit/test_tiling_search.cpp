// Automatic tiling: the dimension classes a program ties (tra/tiling_classes.hpp) and the outer
// search over tilings (optimizer/tiling_search.hpp). The search's choice is checked against
// planning every tiling one by one here, with the planner alone. Padding: test_tiling_padding.cpp.
#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>
#include <map>

#include "core/error.hpp"
#include "optimizer/tiling_moves.hpp"
#include "optimizer/tiling_search.hpp"
#include "program_fixtures.hpp"
#include "temp_dir.hpp"
#include "tra/tiling_classes.hpp"
#include "workflow/workflow_loader.hpp"

using namespace tra;
using tra::optimizer::CostModel;
using tra::optimizer::PlanRequest;

namespace {

const SourceLocation kStep{"t.yaml", 3, 5, "R"};

// (input, dimension) pairs of each class, as names, sorted.
std::vector<std::vector<std::string>> class_names(const TilingSpace& s) {
    std::vector<std::vector<std::string>> out;
    for (const TileClass& c : s.classes) {
        std::vector<std::string> names;
        for (const auto& [i, d] : c.dims) names.push_back(s.inputs[i].name + std::to_string(d));
        std::sort(names.begin(), names.end());
        out.push_back(names);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Classes of one group together, as class_names writes them, sorted.
std::vector<std::vector<std::string>> group_names(const TilingSpace& s) {
    std::map<std::size_t, std::vector<std::string>> groups;
    for (const TileClass& c : s.classes)
        for (const auto& [i, d] : c.dims)
            groups[c.group].push_back(s.inputs[i].name + std::to_string(d));
    std::vector<std::vector<std::string>> out;
    for (auto& [g, names] : groups) {
        std::sort(names.begin(), names.end());
        out.push_back(names);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// C = A B as an einsum, A [I, K] and B [K, J] cut as `t` says.
Program einsum_matmul(const Tiling& t, std::int64_t I, std::int64_t K, std::int64_t J) {
    ProgramBuilder b("mm", DType::F64);
    b.add_input("A", Shape{I, K}, t.at("A"), DType::F64, testing::generated(), testing::at("A"));
    b.add_input("B", Shape{K, J}, t.at("B"), DType::F64, testing::generated(), testing::at("B"));
    EinsumStep step;
    step.spec = "ik,kj->ij";
    step.inputs = {"A", "B"};
    b.add_einsum("C", step, testing::at("C"));
    b.add_output("C", "out.h5", "/C", testing::at("out"));
    Program p = b.finish();
    p.tiling = t;
    return p;
}

TilingSpace matmul_space(std::int64_t I, std::int64_t K, std::int64_t J) {
    TilingClasses c;
    c.add_input("A", Shape{I, K}, {0, 0});
    c.add_input("B", Shape{K, J}, {0, 0});
    c.add_einsum("C", EinsumStep{"ik,kj->ij", {"A", "B"}});
    return c.space();
}

PlanRequest time_request(int sites) {
    PlanRequest r;
    r.sites = sites;
    r.cost = CostModel::Time;
    return r;
}

}  // namespace

TEST_CASE("tiling classes: an einsum ties each label's dimensions", "[tiling]") {
    TilingClasses c;
    c.add_input("A", Shape{64, 32}, {0, 0});
    c.add_input("B", Shape{32, 16}, {0, 0});
    c.add_input("x", Shape{16}, {0});
    c.add_einsum("C", EinsumStep{"ik,kj->ij", {"A", "B"}});
    // C's j (B's dimension 1) meets x's: C is computed, x is an input, so x's cut is the
    // einsum's and C is re-tiled to it where the two differ: two classes, one group.
    c.add_einsum("y", EinsumStep{"ij,j->i", {"C", "x"}});
    const TilingSpace s = c.space();
    CHECK(s.inputs.size() == 3);
    CHECK(class_names(s) ==
          std::vector<std::vector<std::string>>{{"A0"}, {"A1", "B0"}, {"B1"}, {"x0"}});
    CHECK(group_names(s) ==
          std::vector<std::vector<std::string>>{{"A0"}, {"A1", "B0"}, {"B1", "x0"}});
    for (const TileClass& k : s.classes) CHECK_FALSE(k.fixed);
    // C follows x's cut in y's lowering (EinsumStep::followers); C is no operand of itself.
    CHECK(c.followers("y") == std::vector<std::size_t>{0});
    CHECK(c.followers("C").empty());
    // Where C's j is cut by hand, y keeps the rule of hand-tiled workflows.
    TilingClasses by_hand;
    by_hand.add_input("A", Shape{64, 32}, {0, 0});
    by_hand.add_input("B", Shape{32, 16}, {0, 8});
    by_hand.add_input("x", Shape{16}, {0});
    by_hand.add_einsum("C", EinsumStep{"ik,kj->ij", {"A", "B"}});
    by_hand.add_einsum("y", EinsumStep{"ij,j->i", {"C", "x"}});
    CHECK(by_hand.followers("y").empty());
}

TEST_CASE("tiling classes: computed operands alone tie a label, an explicit tile fixes a group",
          "[tiling]") {
    TilingClasses c;
    c.add_input("A", Shape{64, 32}, {0, 0});
    c.add_input("B", Shape{64, 32}, {0, 0});
    c.add_input("x", Shape{32}, {8});  // explicit
    c.add_einsum("P", EinsumStep{"ij->ij", {"A"}});
    c.add_einsum("Q", EinsumStep{"ij->ij", {"B"}});
    c.add_einsum("S", EinsumStep{"ij,ij->ij", {"P", "Q"}});  // no input carries i or j: tied
    c.add_einsum("y", EinsumStep{"ij,j->i", {"S", "x"}});    // S's j is re-cut to x's 8
    const TilingSpace s = c.space();
    CHECK(class_names(s) == std::vector<std::vector<std::string>>{{"A0", "B0"}, {"A1", "B1"}});
    CHECK(group_names(s) == class_names(s));
    for (const TileClass& k : s.classes)
        CHECK(k.fixed ==
              (k.dims.front().second == 1 ? std::optional<std::int64_t>(8) : std::nullopt));
}

TEST_CASE("tiling moves: a group moves as one, or each class alone", "[tiling]") {
    TilingSpace space;
    space.inputs = {{"A", Shape{64, 32}, {0, 0}}, {"B", Shape{32, 16}, {0, 0}}};
    space.classes = {{64, {{0, 0}}, std::nullopt, false, "", 0},
                     {32, {{0, 1}}, std::nullopt, false, "", 1},
                     {32, {{1, 0}}, std::nullopt, true, "", 1}};
    // Class 2 may also be padded (size 11 of 32); the group takes the sizes both may take.
    const std::vector<std::vector<std::int64_t>> sizes = {
        {64, 32, 16, 8}, {32, 16, 8, 4}, {32, 16, 11, 8, 4}};
    const optimizer::TilingMoves alike(space, sizes, true), apart(space, sizes, false);
    CHECK(alike.units() == 2);
    CHECK(alike.linked());
    CHECK(apart.units() == 3);
    CHECK_FALSE(apart.linked());
    CHECK(alike.combinations() == 16);
    CHECK(apart.combinations() == 80);
    // Every choice of the grouped moves cuts the group alike.
    std::vector<std::size_t> index(alike.units(), 0);
    std::size_t n = 0;
    do {
        const optimizer::TilingChoice at = alike.choice(index);
        CHECK(sizes[1][at[1]] == sizes[2][at[2]]);
        ++n;
    } while (alike.next(index));
    CHECK(n == 16);
    const optimizer::TilingChoice at = alike.nearest(2.0);  // 2 tiles: 32, 16, 16
    CHECK(at == optimizer::TilingChoice{1, 1, 1});
    for (const auto& m : alike.scalings(at)) CHECK(sizes[1][m[1]] == sizes[2][m[2]]);
    CHECK(alike.scalings(at).size() == 6);  // all twice, all half; each unit twice and half
    const auto moves = apart.scalings(at);
    CHECK(moves.size() == 8);  // and each class alone: class 1 cut finer, class 2 not
    CHECK(std::find(moves.begin(), moves.end(), optimizer::TilingChoice{1, 2, 1}) != moves.end());
    CHECK(alike.coarser(at) == optimizer::TilingChoice{0, 0, 0});
    CHECK_FALSE(alike.coarser({0, 0, 0}));
}

TEST_CASE("tiling classes: a join ties its on positions, an explicit tile fixes its class",
          "[tiling]") {
    TilingClasses c;
    c.add_input("A", Shape{64, 32}, {0, 0});
    c.add_input("B", Shape{32, 16}, {8, 16});  // explicit
    c.add_join("AB", "A", "B", {1}, {0}, kernels::KernelCall("matmul"), kStep);
    c.add_aggregate("C", "AB", {0, 2}, kernels::KernelCall("add"));
    c.add_input("D", Shape{64, 16}, {0, 16});
    c.add_join("E", "C", "D", {0, 1}, {0, 1}, kernels::KernelCall("add"), kStep);  // C's i is D's
    const TilingSpace s = c.space();
    CHECK(class_names(s) == std::vector<std::vector<std::string>>{{"A0", "D0"}, {"A1"}});
    for (const TileClass& k : s.classes)
        CHECK(k.fixed == (s.inputs[k.dims.front().first].name == "A" && k.dims.front().second == 1
                              ? std::optional<std::int64_t>(8)
                              : std::nullopt));
}

TEST_CASE("tiling classes: a step that depends on the tiling refuses an auto dimension",
          "[tiling]") {
    SECTION("a rekey of an auto input") {
        TilingClasses c;
        c.add_input("A", Shape{64, 32}, {16, 0});
        c.add_transform("T", "A", kernels::KernelCall("relu"), kStep);
        c.add_tiling_dependent("R", "T", "a rekey computes keys from key values", kStep);
        try {
            (void)c.space();
            FAIL("no error");
        } catch (const Error& e) {
            CHECK(e.kind() == ErrorKind::BadInput);
            CHECK(e.where().line == 3);
            CHECK_THAT(e.message(), Catch::Contains("step R") &&
                                        Catch::Contains("dimension 1 of input A") &&
                                        Catch::Contains("a rekey"));
        }
    }
    SECTION("an auto dimension tied to the rekey's operand only by a later step") {
        TilingClasses c;
        c.add_input("A", Shape{8, 8}, {4, 4});
        c.add_input("B", Shape{8, 8}, {0, 0});
        c.add_tiling_dependent("R", "A", "a filter tests key values", kStep);
        c.add_einsum("C", EinsumStep{"ij,jk->ik", {"A", "B"}});  // ties A's j, which R read, to B's
        CHECK_THROWS_AS(c.space(), Error);
    }
    SECTION("explicit dimensions may reach it") {
        TilingClasses c;
        c.add_input("A", Shape{8, 8}, {4, 4});
        c.add_input("B", Shape{8, 8}, {0, 0});
        c.add_tiling_dependent("R", "A", "a filter tests key values", kStep);
        c.add_einsum("C", EinsumStep{"ij->ji", {"B"}});
        CHECK(c.space().classes.size() == 2);
    }
}

TEST_CASE("tiling search: every tiling planned when few, each plan named by its tiling",
          "[tiling]") {
    const TilingSpace space = matmul_space(16, 8, 16);
    Program loaded = einsum_matmul(space.resolve({16, 8, 16}), 16, 8, 16);
    loaded.tiling_space = space;
    const auto build = [](const Tiling& t) { return einsum_matmul(t, 16, 8, 16); };
    const optimizer::RankedPlans r = optimizer::rank_tiled_plans(loaded, build, time_request(2));
    REQUIRE(r.plans.size() > 10);
    std::set<std::string> tilings, names;
    for (const auto& p : r.plans) {
        names.insert(p.name);
        tilings.insert(optimizer::tiling_name(p.plan.program()));
        CHECK(p.name.rfind(optimizer::tiling_name(p.plan.program()) + ",", 0) == 0);
    }
    CHECK(names.size() == r.plans.size());
    CHECK(tilings.size() > 2);
    for (std::size_t i = 1; i < r.plans.size(); ++i) CHECK(r.seconds[i - 1] <= r.seconds[i]);
    // Keeping fewer plans (tra run keeps one) chooses the same first plan, ties included: A and
    // B are symmetric here, so tilings tie on cost and break on their names.
    PlanRequest one = time_request(2);
    one.top = 1;
    const auto first = optimizer::rank_tiled_plans(loaded, build, one);
    REQUIRE(first.plans.size() == 1);
    CHECK(first.plans.front().name == r.plans.front().name);

    // Pinning A's tile keeps only tilings with it (and B's k tied to it).
    PlanRequest pinned = time_request(2);
    pinned.tiling_pins["A"] = Shape{4, 2};
    for (const auto& p : optimizer::rank_tiled_plans(loaded, build, pinned).plans) {
        CHECK(p.plan.program().tiling.at("A") == Shape{4, 2});
        CHECK(p.plan.program().tiling.at("B")[0] == 2);
    }
    pinned.tiling_pins["A"] = Shape{3, 2};  // 3 does not divide 16
    CHECK_THROWS_AS(optimizer::rank_tiled_plans(loaded, build, pinned), Error);
    // Pins of two inputs must agree on the label they share (k: 2 in A, 4 in B).
    PlanRequest conflicting = time_request(2);
    conflicting.tiling_pins["A"] = Shape{4, 2};
    conflicting.tiling_pins["B"] = Shape{4, 8};
    CHECK_THROWS_WITH(optimizer::rank_tiled_plans(loaded, build, conflicting),
                      Catch::Contains("conflicts with the tiles it is tied to"));
    conflicting.tiling_pins["B"] = Shape{2, 8};
    for (const auto& p : optimizer::rank_tiled_plans(loaded, build, conflicting).plans)
        CHECK(p.name.rfind("A@4x2,B@2x8,", 0) == 0);
}

TEST_CASE("tiling search: the descent's first plan is within 1.10x of the best tiling",
          "[tiling]") {
    const std::int64_t n = 64;
    const TilingSpace space = matmul_space(n, n, n);
    Program loaded = einsum_matmul(space.resolve({n, n, n}), n, n, n);
    loaded.tiling_space = space;
    const auto build = [&](const Tiling& t) { return einsum_matmul(t, n, n, n); };
    for (int sites : {2, 4}) {
        CAPTURE(sites);
        // The best first plan over every tiling with at most 16 x sites tiles per input.
        double best = std::numeric_limits<double>::infinity();
        std::string best_name;
        for (std::int64_t i = 1; i <= n; i *= 2)
            for (std::int64_t k = 1; k <= n; k *= 2)
                for (std::int64_t j = 1; j <= n; j *= 2) {
                    if (i * k > 16 * sites || k * j > 16 * sites) continue;
                    const Program p = build(space.resolve({n / i, n / k, n / j}));
                    const auto r = optimizer::rank_plans(p, time_request(sites));
                    if (r.plans.front().seconds < best)
                        best = r.plans.front().seconds, best_name = optimizer::tiling_name(p);
                }
        CAPTURE(best_name);
        const auto descent = optimizer::rank_tiled_plans(loaded, build, time_request(sites), 0);
        CAPTURE(descent.plans.front().name);
        CHECK(descent.plans.front().seconds <= 1.10 * best);
        const auto every =
            optimizer::rank_tiled_plans(loaded, build, time_request(sites), 1u << 20);
        CHECK(every.plans.front().seconds == best);
    }
}

TEST_CASE("tiling search: the descent leaves a local optimum two doublings wide", "[tiling]") {
    // EinDecomp's skewed chain at 16 sites: D E's contraction (12800) is best cut into 16
    // pieces, one product per site then a pre-aggregation. From 4 pieces, 8 predict slower
    // than 4, so doubling and halving alone stop there; a four-fold cut of one class finds it.
    const std::string wf = TRA_SOURCE_DIR "/plans/eindecomp/chain-skewed-auto.yaml";
    const Program loaded = workflow::load_workflow(wf);
    const auto build = workflow::program_of_tiling(wf, workflow::LoadOptions{});
    PlanRequest request = time_request(16);
    const auto pinned_seconds = [&](std::int64_t d_rows, std::int64_t k) {
        PlanRequest r = request;
        r.tiling_pins = {{"D", Shape{d_rows, k}}};
        return optimizer::rank_tiled_plans(loaded, build, r).plans.front().seconds;
    };
    const double four = pinned_seconds(64, 3200), eight = pinned_seconds(64, 1600),
                 sixteen = pinned_seconds(64, 800);
    CHECK(eight > four);  // the trap: one doubling from 4 pieces predicts slower
    CHECK(sixteen < four);
    const auto descent = optimizer::rank_tiled_plans(loaded, build, request, 0);
    CAPTURE(descent.plans.front().name);
    CHECK(descent.plans.front().seconds <= sixteen);
}

TEST_CASE("tiling search: a re-tiling is placed where cutting apart pays", "[tiling]") {
    // Y = (X W1) W2 with W1 pinned whole: H = X W1 comes out with k uncut. Cut alike, W2 would
    // be uncut along k too and Y broadcast; cut apart, H is re-tiled to W2's finer k (Y.retile1)
    // and Y's products are spread along k and pre-aggregated.
    testing::TempDir dir("tiling_search");
    const std::string wf = dir.write("mlp.yaml", R"(name: mlp
inputs:
  X: {shape: [1024, 64], tile: auto, generate: {uniform: [-1, 1], seed: 1}}
  W1: {shape: [64, 4096], tile: auto, generate: {uniform: [-1, 1], seed: 2}}
  W2: {shape: [4096, 64], tile: auto, generate: {uniform: [-1, 1], seed: 3}}
program:
  - H: {einsum: "ij,jk->ik", inputs: [X, W1]}
  - Y: {einsum: "ik,kl->il", inputs: [H, W2]}
outputs:
  Y: {file: out/Y.h5}
)");
    const Program loaded = workflow::load_workflow(wf);
    const auto build = workflow::program_of_tiling(wf, workflow::LoadOptions{});
    PlanRequest request = time_request(16);
    request.tiling_pins = {{"W1", Shape{64, 4096}}};
    const auto first = [&](const std::map<std::string, Shape>& pins) {
        PlanRequest r = request;
        for (const auto& [name, tile] : pins) r.tiling_pins[name] = tile;
        return optimizer::rank_tiled_plans(loaded, build, r);
    };
    const auto searched = first({});
    const optimizer::RankedPlan& chosen = searched.plans.front();
    CAPTURE(chosen.name);
    CHECK(chosen.plan.program().tiling.at("W2")[0] < 4096);
    CHECK(chosen.plan.program().find("Y.retile1").has_value());
    CHECK(searched.seconds.front() < first({{"W2", Shape{4096, 64}}}).seconds.front());
    // No tiling of X and W2 (powers of two) that the search may try predicts faster.
    int planned = 0;
    for (std::int64_t x = 1; x <= 64; x *= 4)
        for (std::int64_t k = 1; k <= 64; k *= 2)
            for (std::int64_t l = 1; l <= 4; l *= 2) {
                CAPTURE(x, k, l);
                double seconds = 0;
                try {
                    seconds = first({{"X", Shape{1024 / x, 64}}, {"W2", Shape{4096 / k, 64 / l}}})
                                  .seconds.front();
                } catch (const Error&) {  // more tiles or kernel calls than the search allows
                    continue;
                }
                CHECK(searched.seconds.front() <= seconds);
                ++planned;
            }
    CHECK(planned > 40);
}

TEST_CASE("tiling search: the plans do not depend on how many threads plan the tilings",
          "[tiling]") {
    const std::int64_t n = 32;
    const TilingSpace space = matmul_space(n, n, n);
    Program loaded = einsum_matmul(space.resolve({n, n, n}), n, n, n);
    loaded.tiling_space = space;
    const auto build = [&](const Tiling& t) { return einsum_matmul(t, n, n, n); };
    // The descent (limit 0) and the exhaustive search in batches (every tiling), keeping a few
    // plans: which tilings keep theirs must not depend on the order they finished in.
    for (std::size_t limit : {std::size_t{0}, std::size_t{1} << 20}) {
        CAPTURE(limit);
        PlanRequest request = time_request(4);
        request.top = 5;
        request.planner_threads = 1;
        const auto one = optimizer::rank_tiled_plans(loaded, build, request, limit);
        request.planner_threads = 3;
        const auto three = optimizer::rank_tiled_plans(loaded, build, request, limit);
        REQUIRE(one.plans.size() == 5);
        REQUIRE(three.plans.size() == one.plans.size());
        for (std::size_t i = 0; i < one.plans.size(); ++i) {
            CHECK(three.plans[i].name == one.plans[i].name);
            CHECK(three.seconds[i] == one.seconds[i]);
            CHECK(three.plans[i].totals.total_bytes() == one.plans[i].totals.total_bytes());
        }
    }
}
