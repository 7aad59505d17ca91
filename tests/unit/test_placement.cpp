// Placements: the Part site function (round robin, balance bound, order), Grid sites and
// replication, errors, and the local-join rules (co_located / join_output_placement), the
// latter checked against brute force over small key boxes.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/relation.hpp"
#include "ia/placement.hpp"

using namespace tra;
using namespace tra::ia;
using R = Placement::Replicate;

namespace {

// Loads per site of a dense box under a placement.
std::vector<std::int64_t> loads(const Placement& p, const Frontier& box, int sites) {
    std::vector<std::int64_t> load(static_cast<std::size_t>(sites), 0);
    for (const Key& k : KeySet::box(box))
        for (Site s : p.sites(k, sites)) ++load[static_cast<std::size_t>(s)];
    return load;
}

std::int64_t spread(const std::vector<std::int64_t>& load) {
    auto [lo, hi] = std::minmax_element(load.begin(), load.end());
    return *hi - *lo;
}

// The documented bound for Part over all positions of a dense box: the product of the
// remainders n_i mod S without the largest one (0 if some extent is a multiple of S).
std::int64_t part_bound(const Frontier& box, int sites) {
    std::vector<std::int64_t> r;
    for (auto n : box) r.push_back(n % sites);
    std::sort(r.begin(), r.end());
    std::int64_t p = 1;
    for (std::size_t i = 0; i + 1 < r.size(); ++i) p *= r[i];
    return r.empty() || r.front() == 0 ? 0 : p;
}

KeyPositions iota_positions(std::size_t n) {
    KeyPositions d;
    for (std::size_t i = 0; i < n; ++i) d.push_back(i);
    return d;
}

Key output_key(const Key& l, const Key& r, const KeyPositions& right_keys) {
    Key out = l;
    for (std::size_t i = 0; i < r.size(); ++i)
        if (std::find(right_keys.begin(), right_keys.end(), i) == right_keys.end())
            out.push_back(r[i]);
    return out;
}

std::vector<Site> common(std::vector<Site> a, std::vector<Site> b) {
    std::vector<Site> out;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
}

// Brute force over the boxes and S = 1..8: does every matching pair meet? When a placement
// for the output is claimed, it must put each output tuple exactly where its pair met.
bool joins_locally(const Placement& left, const KeyPositions& lk, const Frontier& lbox,
                   const Placement& right, const KeyPositions& rk, const Frontier& rbox,
                   const std::optional<Placement>& claimed) {
    for (int s = 1; s <= 8; ++s) {
        if (left.grid_sites() > s || right.grid_sites() > s) continue;
        for (const Key& l : KeySet::box(lbox))
            for (const Key& r : KeySet::box(rbox)) {
                bool match = true;
                for (std::size_t j = 0; j < lk.size(); ++j) match = match && l[lk[j]] == r[rk[j]];
                if (!match) continue;
                auto met = common(left.sites(l, s), right.sites(r, s));
                if (met.empty()) return false;
                if (claimed) REQUIRE(claimed->sites(output_key(l, r, rk), s) == met);
            }
    }
    return true;
}

}  // namespace

TEST_CASE("placements print as in plans", "[placement]") {
    CHECK(Placement::all().str() == "All");
    CHECK(Placement::part({1}).str() == "Part[1]");
    CHECK(Placement::part({0, 2}).str() == "Part[0, 2]");
    CHECK(Placement::grid(0, 1, 2, 3, R::AlongRow).str() ==
          "Grid[0 x 1 on 2x3, replicated along rows]");
    CHECK(Placement::grid(0, 1, 2, 3, R::AlongColumn).str() ==
          "Grid[0 x 1 on 2x3, replicated along columns]");
    CHECK(Placement::grid(1, 0, 2, 2).str() == "Grid[1 x 0 on 2x2]");
    CHECK(Placement::layered_grid(0, 2, 1, 2, 2, 4).str() == "Grid[0 x 2 x 1 on 2x2x4]");
    CHECK(Placement::layered_grid(0, 1, 1, 1, 2, 2, R::AlongRow).str() ==
          "Grid[0 x 1 x 1 on 1x2x2, replicated along rows]");
    CHECK(Placement::layered_grid(0, 1, 7, 2, 3, 1) == Placement::grid(0, 1, 2, 3));
    CHECK(Placement::unknown().str() == "Unknown");
    CHECK(Placement::part({0, 1}) != Placement::part({1, 0}));
}

TEST_CASE("Part on one position is round robin on the value", "[placement]") {
    for (int s = 1; s <= 5; ++s)
        for (std::int64_t v = 0; v < 20; ++v) {
            CHECK(Placement::part({1}).sites(Key{7, v, 3}, s) == std::vector<Site>{int(v % s)});
            CHECK(Placement::part({1}).home(Key{7, v, 3}, s) == v % s);
        }
    // Dense 1-D ranges: loads differ by at most ceil(n/S) - floor(n/S).
    for (int s = 1; s <= 5; ++s)
        for (std::int64_t n = 1; n <= 13; ++n) {
            auto load = loads(Placement::part({0}), Frontier{n}, s);
            CHECK(spread(load) == (n % s == 0 ? 0 : 1));
        }
}

TEST_CASE("Part depends only on the ordered values and S", "[placement]") {
    // Same values at different positions land on the same site: what co-location relies on.
    for (int s = 1; s <= 5; ++s)
        for (std::int64_t a = 0; a < 12; ++a)
            for (std::int64_t b = 0; b < 12; ++b)
                CHECK(Placement::part({0, 2}).sites(Key{a, 99, b}, s) ==
                      Placement::part({1, 0}).sites(Key{b, a}, s));
    CHECK(part_site({}, 4) == 0);
    CHECK(Placement::part({}).sites(Key{5, 6}, 4) == std::vector<Site>{0});
    // The hand-computed definition: h = sum v_i + i * floor(v_i / S) mod S.
    using Values = std::vector<std::int64_t>;
    CHECK(part_site(Values{0, 2}, 2) == 1);      // 0 + 2 + 1*1
    CHECK(part_site(Values{2, 0}, 2) == 0);      // 2 + 0 + 0
    CHECK(part_site(Values{7, 5, 11}, 5) == 3);  // 7 + (5 + 1*1) + (11 + 2*2) = 28
    // The definition written out with exact integers (floor division, non-negative residues),
    // against the site function's shortcuts, on negative values, values above S and S = 1.
    const auto floor_div = [](std::int64_t a, std::int64_t b) {
        return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
    };
    for (std::int64_t S = 1; S <= 7; ++S)
        for (std::int64_t a = -3 * S; a <= 3 * S; ++a)
            for (std::int64_t b = -3 * S; b <= 3 * S; b += 2)
                for (std::int64_t c : {std::int64_t{0}, 5 * S + 1, -7 * S}) {
                    std::int64_t sum = 0;
                    const std::int64_t v[] = {a, b, c};
                    for (std::int64_t i = 0; i < 3; ++i) sum += v[i] + i * floor_div(v[i], S);
                    const std::int64_t want = ((sum % S) + S) % S;
                    CHECK(part_site(Values{a, b, c}, static_cast<int>(S)) == want);
                }
}

TEST_CASE("Part on several positions depends on their order", "[placement]") {
    for (int s = 2; s <= 5; ++s) {
        bool differs = false;
        for (const Key& k : KeySet::box(Frontier{2 * s, 2 * s}))
            differs = differs ||
                      Placement::part({0, 1}).sites(k, s) != Placement::part({1, 0}).sites(k, s);
        CHECK(differs);
    }
}

TEST_CASE("Part is balanced on dense boxes within the documented bound", "[placement]") {
    for (int s = 1; s <= 5; ++s) {
        for (const Frontier& box : {Frontier{4, 4}, Frontier{5, 3}, Frontier{8, 2, 3}}) {
            INFO("box " << box.str() << " S=" << s);
            auto load = loads(Placement::part(iota_positions(box.size())), box, s);
            CHECK(spread(load) <= part_bound(box, s));
        }
    }
    // The bound is tight enough to matter: with one extent a multiple of S, perfect balance.
    CHECK(spread(loads(Placement::part({0, 1}), Frontier{4, 5}, 4)) == 0);
    CHECK(spread(loads(Placement::part({0, 1}), Frontier{5, 4}, 4)) == 0);
    // Exhaustive: every 2-D box up to 9x9 and 3-D box up to 5x5x5, S = 1..6, both orders.
    for (int s = 1; s <= 6; ++s) {
        for (std::int64_t a = 1; a <= 9; ++a)
            for (std::int64_t b = 1; b <= 9; ++b) {
                const Frontier box{a, b};
                REQUIRE(spread(loads(Placement::part({0, 1}), box, s)) <= part_bound(box, s));
                REQUIRE(spread(loads(Placement::part({1, 0}), box, s)) <= part_bound(box, s));
            }
        for (std::int64_t a = 1; a <= 5; ++a)
            for (std::int64_t b = 1; b <= 5; ++b)
                for (std::int64_t c = 1; c <= 5; ++c) {
                    const Frontier box{a, b, c};
                    REQUIRE(spread(loads(Placement::part({2, 0, 1}), box, s)) <=
                            part_bound(box, s));
                }
    }
}

TEST_CASE("Grid sites and replication", "[placement]") {
    const auto g = Placement::grid(0, 1, 2, 3);
    // site = (key[0] mod 2) * 3 + key[1] mod 3
    CHECK(g.sites(Key{0, 0}, 6) == std::vector<Site>{0});
    CHECK(g.sites(Key{1, 2}, 6) == std::vector<Site>{5});
    CHECK(g.sites(Key{3, 4}, 7) == std::vector<Site>{4});
    CHECK(g.home(Key{2, 5}, 6) == 2);
    // Replicated along the row: every column of the grid row; along the column: every row.
    CHECK(Placement::grid(0, 1, 2, 3, R::AlongRow).sites(Key{1, 7}, 6) ==
          std::vector<Site>{3, 4, 5});
    CHECK(Placement::grid(0, 1, 2, 3, R::AlongColumn).sites(Key{1, 7}, 6) ==
          std::vector<Site>{1, 4});
    // Sites beyond the grid hold nothing.
    auto load = loads(g, Frontier{4, 6}, 8);
    CHECK(load == std::vector<std::int64_t>{4, 4, 4, 4, 4, 4, 0, 0});
    CHECK_THROWS_AS(g.sites(Key{0, 0}, 5), Error);
    CHECK_THROWS_AS(Placement::grid(0, 1, 0, 2), Error);
    CHECK_THROWS_AS(Placement::grid(0, 1, 2, 3, R::AlongRow).home(Key{0, 0}, 6), Error);
}

TEST_CASE("layered Grid sites", "[placement]") {
    // site = (key[2] mod 3) * 2 * 2 + (key[0] mod 2) * 2 + key[1] mod 2
    const auto g = Placement::layered_grid(0, 1, 2, 2, 2, 3);
    CHECK(g.grid_sites() == 12);
    CHECK(g.sites(Key{0, 0, 0}, 12) == std::vector<Site>{0});
    CHECK(g.sites(Key{1, 0, 1}, 12) == std::vector<Site>{6});
    CHECK(g.sites(Key{3, 5, 8}, 13) == std::vector<Site>{11});
    // Replication stays inside the tuple's layer.
    CHECK(Placement::layered_grid(0, 1, 2, 2, 2, 3, R::AlongRow).sites(Key{1, 0, 2}, 12) ==
          std::vector<Site>{10, 11});
    CHECK(Placement::layered_grid(0, 1, 2, 2, 2, 3, R::AlongColumn).sites(Key{1, 1, 1}, 12) ==
          std::vector<Site>{5, 7});
    // Every site of the layered grid gets its share of a dense box.
    CHECK(loads(g, Frontier{4, 2, 3}, 12) == std::vector<std::int64_t>(12, 2));
    CHECK_THROWS_AS(g.sites(Key{0, 0, 0}, 11), Error);
    CHECK_THROWS_AS(Placement::layered_grid(0, 1, 2, 2, 2, 0), Error);
    // Moved to other key positions, the layer moves too.
    CHECK(g.on_positions({2, 0, 1}) == Placement::layered_grid(2, 0, 1, 2, 2, 3));
}

TEST_CASE("All, Unknown and malformed uses", "[placement]") {
    CHECK(Placement::all().sites(Key{3}, 3) == std::vector<Site>{0, 1, 2});
    CHECK(Placement::all().replicated());
    CHECK_FALSE(Placement::part({0}).replicated());
    CHECK_THROWS_AS(Placement::all().home(Key{3}, 3), Error);
    try {
        Placement::unknown().sites(Key{1}, 2);
        FAIL("Unknown must throw");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::Failed);
        CHECK(e.message() == "placement is unknown");
    }
    CHECK_THROWS_AS(Placement::part({2}).sites(Key{1, 1}, 2), Error);
    CHECK_THROWS_AS(Placement::part({0}).sites(Key{1}, 0), Error);
}

TEST_CASE("local joins: Part and All", "[placement][join]") {
    // Matrix multiply X(i,k) * Y(k,j) joins on X[1] = Y[0]; output key (i, k, j).
    const KeyPositions lk{1}, rk{0};
    const Frontier xb{3, 4}, yb{4, 5};
    auto out = [&](const Placement& l, const Placement& r) {
        return join_output_placement(l, lk, r, rk, 2);
    };
    CHECK(out(Placement::part({1}), Placement::part({0})) == Placement::part({1}));
    CHECK(out(Placement::all(), Placement::part({1})) == Placement::part({2}));
    CHECK(out(Placement::all(), Placement::part({0})) == Placement::part({1}));
    CHECK(out(Placement::part({0}), Placement::all()) == Placement::part({0}));
    CHECK(out(Placement::all(), Placement::all()) == Placement::all());
    CHECK_FALSE(out(Placement::part({0}), Placement::part({0})));
    CHECK_FALSE(out(Placement::part({1}), Placement::part({1})));
    CHECK_FALSE(out(Placement::part({0}), Placement::part({1})));  // i and j never meet
    CHECK_FALSE(out(Placement::unknown(), Placement::all()));
    CHECK_FALSE(out(Placement::all(), Placement::unknown()));
    CHECK_FALSE(out(Placement::part({1}), Placement::grid(0, 1, 1, 1)));

    const std::vector<Placement> candidates{Placement::all(),           Placement::part({}),
                                            Placement::part({0}),       Placement::part({1}),
                                            Placement::part({0, 1}),    Placement::part({1, 0}),
                                            Placement::grid(0, 1, 1, 2)};
    for (const auto& l : candidates)
        for (const auto& r : candidates) {
            INFO(l.str() << " join " << r.str());
            auto claimed = out(l, r);
            CHECK(co_located(l, lk, r, rk) == claimed.has_value());
            if (claimed) CHECK(joins_locally(l, lk, xb, r, rk, yb, claimed));
        }
    // Every rejected Part pair really misses some pair for some S (rules are not too strict).
    for (const auto& l : {Placement::part({0}), Placement::part({1})})
        for (const auto& r : {Placement::part({0}), Placement::part({1})})
            if (!out(l, r)) CHECK_FALSE(joins_locally(l, lk, xb, r, rk, yb, std::nullopt));
}

TEST_CASE("local joins: several join positions must match in order", "[placement][join]") {
    const Frontier b{4, 5, 2};
    const KeyPositions lk{0, 1}, rk{1, 0};  // left (a,b,c) with right (b,a,c)
    auto l = Placement::part({0, 1}), r = Placement::part({1, 0});
    CHECK(co_located(l, lk, r, rk));
    CHECK(
        joins_locally(l, lk, b, r, rk, Frontier{5, 4, 2}, join_output_placement(l, lk, r, rk, 3)));
    CHECK_FALSE(co_located(l, lk, Placement::part({0, 1}), rk));
    CHECK_FALSE(
        joins_locally(l, lk, b, Placement::part({0, 1}), rk, Frontier{5, 4, 2}, std::nullopt));
    CHECK_FALSE(co_located(Placement::part({0}), lk, Placement::part({1, 0}), rk));
    CHECK(co_located(Placement::part({}), lk, Placement::part({}), rk));
    // Right join positions map to their left partner, the others follow the left key.
    CHECK(join_output_placement(Placement::all(), {1}, Placement::part({2, 0, 1}), {0}, 3) ==
          Placement::part({4, 1, 3}));  // 2 -> 3+2-1, 0 -> its partner 1, 1 -> 3+1-1
}

TEST_CASE("local joins: grids", "[placement][join]") {
    const KeyPositions lk{1}, rk{0};
    const Frontier xb{4, 3}, yb{3, 5};
    // SUMMA: A(i,k) replicated along grid rows, B(k,j) along grid columns: every pair meets
    // on exactly the site (i mod pr, j mod pc), so C(i,k,j) is an unreplicated grid on i x j.
    auto a = Placement::grid(0, 1, 2, 2, R::AlongRow);
    auto b = Placement::grid(0, 1, 2, 2, R::AlongColumn);
    auto summa = join_output_placement(a, lk, b, rk, 2);
    REQUIRE(summa);
    CHECK(*summa == Placement::grid(0, 2, 2, 2));
    CHECK(joins_locally(a, lk, xb, b, rk, yb, summa));
    // Swapped replication: A on every grid row, column from k; B on every column, row from k:
    // they meet on the one site (k mod pr, k mod pc).
    auto swapped = join_output_placement(b, lk, a, rk, 2);
    REQUIRE(swapped);
    CHECK(joins_locally(b, lk, xb, a, rk, yb, swapped));
    // Different grids never co-locate; two fixed axes must be a join pair.
    CHECK_FALSE(co_located(a, lk, Placement::grid(0, 1, 1, 4, R::AlongColumn), rk));
    CHECK_FALSE(co_located(a, lk, a, rk));  // both fix their row from i resp. k
    CHECK_FALSE(joins_locally(a, lk, xb, a, rk, yb, std::nullopt));
    // Grid on (k, k') with the row axis matched by the join: fine when both unreplicated.
    auto g = Placement::grid(1, 0, 2, 2), h = Placement::grid(0, 1, 2, 2);
    const KeyPositions lk2{1, 0}, rk2{0, 1};
    auto gh = join_output_placement(g, lk2, h, rk2, 2);
    REQUIRE(gh);
    CHECK(*gh == g);
    CHECK(joins_locally(g, lk2, Frontier{3, 5}, h, rk2, Frontier{5, 3}, gh));
    // All with a grid re-expresses the grid on output positions.
    CHECK(join_output_placement(Placement::all(), lk, b, rk, 2) ==
          Placement::grid(1, 2, 2, 2, R::AlongColumn));
    CHECK(joins_locally(Placement::all(), lk, xb, b, rk, yb,
                        join_output_placement(Placement::all(), lk, b, rk, 2)));
}

TEST_CASE("local joins: layered grids (3-D matrix multiply)", "[placement][join]") {
    const KeyPositions lk{1}, rk{0};
    const Frontier xb{4, 3}, yb{3, 5};
    // A(i,k) on every column of its row in layer k, B(k,j) on every row of its column in layer
    // k: each pair meets on the one site (k, i, j) of the 2 x 2 x 2 grid.
    auto a = Placement::layered_grid(0, 1, 1, 2, 2, 2, R::AlongRow);
    auto b = Placement::layered_grid(0, 1, 0, 2, 2, 2, R::AlongColumn);
    auto c = join_output_placement(a, lk, b, rk, 2);
    REQUIRE(c);
    CHECK(*c == Placement::layered_grid(0, 2, 1, 2, 2, 2));
    CHECK(joins_locally(a, lk, xb, b, rk, yb, c));
    // The layer by i on the left and by k on the right: some pairs are in different layers.
    auto by_i = Placement::layered_grid(0, 1, 0, 2, 2, 2, R::AlongRow);
    CHECK_FALSE(co_located(by_i, lk, b, rk));
    CHECK_FALSE(joins_locally(by_i, lk, xb, b, rk, yb, std::nullopt));
    // Layered with unlayered, or different layer counts, never co-locate.
    CHECK_FALSE(co_located(a, lk, Placement::grid(0, 1, 2, 2, R::AlongColumn), rk));
    CHECK_FALSE(co_located(a, lk, Placement::layered_grid(0, 1, 0, 2, 2, 3, R::AlongColumn), rk));
    // With All, the layered grid is re-expressed on output positions.
    CHECK(join_output_placement(Placement::all(), lk, b, rk, 2) ==
          Placement::layered_grid(1, 2, 1, 2, 2, 2, R::AlongColumn));
    CHECK(joins_locally(Placement::all(), lk, xb, b, rk, yb,
                        join_output_placement(Placement::all(), lk, b, rk, 2)));
}
