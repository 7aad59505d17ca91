#pragma once
// Shared by the logical rule tests (test_rules.cpp, test_map_rules.cpp): small generated programs
// and the reference evaluator as the oracle that a rewrite keeps every result bit for bit.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "runtime/reference_evaluator.hpp"
#include "tra/program_builder.hpp"

namespace tra::rule_fixtures {

using Kind = storage::GeneratorSpec::Kind;

inline StepSource at(const std::string& step) {
    StepSource s;
    s.step = SourceLocation{"rules.yaml", 1, 1, step};
    return s;
}

inline InputSource generated(std::uint64_t seed) {
    storage::GeneratorSpec g;
    g.kind = Kind::Uniform;
    g.lo = -1;
    g.hi = 1;
    g.seed = seed;
    InputSource s;
    s.generate = g;
    return s;
}

// A [8, 8] and B [8, 8] in [2, 2] tiles: frontier [4, 4], 16 tuples each.
inline ProgramBuilder two_inputs() {
    ProgramBuilder b("rules", DType::F64);
    b.add_input("A", Shape{8, 8}, Shape{2, 2}, DType::F64, generated(1), at("A"));
    b.add_input("B", Shape{8, 8}, Shape{2, 2}, DType::F64, generated(2), at("B"));
    return b;
}

inline const Node& named(const Program& p, const std::string& name) {
    const auto id = p.find(name);
    INFO("node " << name);
    REQUIRE(id);
    return p.node(*id);
}

inline bool same_bits(const TensorRelation& x, const TensorRelation& y) {
    if (x.tuples.size() != y.tuples.size()) return false;
    for (auto i = x.tuples.begin(), j = y.tuples.begin(); i != x.tuples.end(); ++i, ++j) {
        const Tile &a = i->second, &b = j->second;
        if (i->first != j->first || a.dtype() != b.dtype() || a.shape() != b.shape() ||
            std::memcmp(a.raw(), b.raw(), a.bytes()) != 0)
            return false;
    }
    return true;
}

// Node `before_name` of `before` and node `after_name` of `after` hold bit-identical relations.
inline void check_same_result(const Program& before, const std::string& before_name,
                              const Program& after, const std::string& after_name) {
    runtime::ReferenceEvaluator eb(before), ea(after);
    INFO(before_name << " vs " << after_name);
    CHECK(same_bits(eb.evaluate(*before.find(before_name)), ea.evaluate(*after.find(after_name))));
}

}  // namespace tra::rule_fixtures
