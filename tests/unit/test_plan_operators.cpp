// The IA operator registry (ia/operator_spec.hpp): every operator declared once, with the
// spelling, arity, enforcer role, Table 1 mapping and paper cost that the TRA paper's section 4
// and 5.3 give it; expected values are written out by hand.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "ia/operator_spec.hpp"
#include "program_fixtures.hpp"

using namespace tra;
using namespace tra::ia;

TEST_CASE("every IA operator has one spec, found under its own enumerator", "[operators]") {
    const std::vector<std::string> names = {
        "input",        "bcast", "shuffle", "local_join",       "local_aggregate",
        "local_filter", "map",   "grid",    "partial_aggregate"};
    const auto& specs = operator_specs();
    REQUIRE(specs.size() == names.size());
    for (std::size_t i = 0; i < specs.size(); ++i) {
        CHECK(specs[i].name == names[i]);
        CHECK(operator_spec(specs[i].op).name == names[i]);
        CHECK(op_name(specs[i].op) == names[i]);
        CHECK(specs[i].placement != nullptr);
    }
}

TEST_CASE("operator specs: arity, enforcers and partials", "[operators]") {
    std::set<std::string> enforcers, partial_makers, partial_movers;
    for (const OperatorSpec& spec : operator_specs()) {
        const std::size_t arity = spec.name == "input" ? 0 : spec.name == "local_join" ? 2 : 1;
        CHECK(spec.arity == arity);
        if (spec.enforcer) {
            enforcers.insert(spec.name);
            CHECK(spec.paper_cost != nullptr);
        }
        if (spec.makes_partials) partial_makers.insert(spec.name);
        if (spec.moves_partials) partial_movers.insert(spec.name);
    }
    CHECK(enforcers == std::set<std::string>{"bcast", "shuffle", "grid"});
    CHECK(partial_makers == std::set<std::string>{"partial_aggregate"});
    CHECK(partial_movers == std::set<std::string>{"shuffle", "grid"});
}

TEST_CASE("operator specs: paper costs of bcast and shuffle (section 5.3)", "[operators]") {
    // A relation of 10 floats: a bcast to 4 sites sends it to each (40), a shuffle once (10).
    const Placement any = Placement::all();
    CHECK(operator_spec(IaOp::Bcast).paper_cost(10, 4, any) == 40);
    CHECK(operator_spec(IaOp::Shuffle).paper_cost(10, 4, any) == 10);
}

TEST_CASE("the operator computing each TRA operator is Table 1's", "[operators]") {
    const Program p = tra::testing::tiled_matmul(2, 2, 2);  // inputs A, B; join AB; aggregate C
    std::vector<std::string> computed;
    for (const Node& n : p.nodes) computed.push_back(n.name + ":" + computing_operator(n.op).name);
    CHECK(computed ==
          std::vector<std::string>{"A:input", "B:input", "AB:local_join", "C:local_aggregate"});
}

TEST_CASE("operator labels carry the arguments that distinguish them", "[operators]") {
    IaNode shuffle;
    shuffle.op = IaOp::Shuffle;
    shuffle.shuffle_dims = {0, 2};
    CHECK(op_label(shuffle) == "shuffle[0, 2]");
    IaNode map;
    map.op = IaOp::Map;
    map.map_arity = 4;
    CHECK(op_label(map) == "map x4");
    map.map_arity = 1;
    CHECK(op_label(map) == "map");
    IaNode join;
    join.op = IaOp::LocalJoin;
    CHECK(op_label(join) == "local_join");
}
