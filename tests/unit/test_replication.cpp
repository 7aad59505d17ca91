// Replication maps of the replicated ("3-D", RMM) join: keys, text, arity and problems; the
// replicated relation, its placement and traced sites.
#include "rmm_fixtures.hpp"

using namespace tra;
using namespace tra::ia;
using namespace tra::rmm_testing;  // with its test names (KernelCall, RankedPlan, at, ...)

TEST_CASE("replication: keys, text, arity, problems", "[rmm]") {
    const Replication spec{{copy(0), fresh(2), copy(1), fresh(3)}};
    CHECK(spec.str() == "(k0, 0:2, k1, 0:3)");
    CHECK(spec.arity() == 6);
    CHECK_FALSE(spec.problem(2));
    const auto keys = spec.keys_of(Key{7, 9});
    REQUIRE(keys.size() == 6);
    CHECK(keys.front() == Key{7, 0, 9, 0});
    CHECK(keys[1] == Key{7, 0, 9, 1});
    CHECK(keys.back() == Key{7, 1, 9, 2});
    CHECK(std::is_sorted(keys.begin(), keys.end()));
    for (const Key& k : keys) CHECK(spec.source_key(k) == Key{7, 9});
    CHECK(Replication{{copy(0), copy(1)}}.keys_of(Key{3, 4}) == std::vector<Key>{Key{3, 4}});

    CHECK(*Replication{{copy(0), fresh(2)}}.problem(2) == "source key position k1 is missing");
    CHECK(*Replication{{copy(0), copy(0), copy(1)}}.problem(2) == "k0 appears twice");
    CHECK(*Replication{{copy(0), copy(2)}}.problem(2) ==
          "k2 is outside the source key of 2 positions");
    CHECK(Replication{{copy(0), copy(1), fresh(0)}}.problem(2).has_value());

    // The plan file's text reads back.
    for (const char* text : {"(k0, 0:2, k1, 0:3)", "(0:4, k0, k1)", "(k0)"}) {
        auto parsed = workflow::parse_replication(text);
        REQUIRE(parsed);
        CHECK(parsed->str() == text);
    }
    CHECK(workflow::parse_replication(" ( k1 ,0 : 4, k0 ) ")->str() == "(k1, 0:4, k0)");
    for (const char* bad : {"", "k0, k1", "(k0, 1:4)", "(k0,, k1)", "(j0)", "(k0, 0..3)"})
        CHECK_FALSE(workflow::parse_replication(bad));
}

TEST_CASE("replication: relation, placement and traced sites", "[rmm]") {
    const Program p = matmul4();
    const Node& a = p.node(*p.find("A"));
    const auto star = replicate_relation(a, Replication{{copy(0), copy(1), fresh(4)}});
    CHECK(star->relation.name == "A*");
    CHECK(star->relation.type.key_arity == 3);
    CHECK(star->relation.type.bound == a.type.bound);
    CHECK(star->relation.tuples() == 64);
    CHECK(star->relation.frontier == Frontier{4, 4, 4});
    CHECK_THROWS_AS(replicate_relation(a, Replication{{copy(0), fresh(4)}}), Error);

    const Replication b_spec{{fresh(4), copy(0), copy(1)}};
    CHECK(replicated_placement(Placement::part({0}), b_spec) == Placement::part({1}));
    CHECK(replicated_placement(Placement::part({1, 0}), b_spec) == Placement::part({2, 1}));
    CHECK(replicated_placement(Placement::all(), b_spec) == Placement::all());
    CHECK(replicated_placement(Placement::grid(0, 1, 2, 2), b_spec) == Placement::grid(1, 2, 2, 2));
    // Every copy is where its source is: the re-expressed placement says the same, key by key.
    for (int S : {1, 2, 3, 4}) {
        const SiteMap in = holders(a.keys, Placement::part({1}), S);
        const auto b_star = replicate_relation(a, b_spec);
        const SiteMap out = replicated_sites(in, b_star->relation.keys, b_spec);
        CHECK(out == holders(b_star->relation.keys,
                             replicated_placement(Placement::part({1}), b_spec), S));
    }

    // The runtime's map: every copy under its key, with the source tile.
    runtime::Tuples in;
    Tile t(DType::F64, Shape{2, 2});
    t.set(3, 1.5);
    in.emplace(Key{1, 2}, t);
    const auto out = runtime::replicate_tuples(Replication{{copy(0), copy(1), fresh(3)}}, in);
    REQUIRE(out.size() == 3);
    CHECK(out.begin()->first == Key{1, 2, 0});
    CHECK(out.rbegin()->first == Key{1, 2, 2});
    for (const auto& [k, tile] : out) CHECK(tile.get(3) == 1.5);
}
