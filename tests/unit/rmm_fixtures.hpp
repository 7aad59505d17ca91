#pragma once
// Shared programs and helpers of the replicated-join unit tests (test_rmm.cpp,
// test_replication.cpp).
#include <catch2/catch.hpp>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "ia/plan_costs.hpp"
#include "ia/plan_validator.hpp"
#include "ia/replicated_join.hpp"
#include "optimizer/search.hpp"
#include "plan_fixtures.hpp"
#include "program_fixtures.hpp"
#include "runtime/replication_map.hpp"
#include "temp_dir.hpp"
#include "tra/program_builder.hpp"
#include "workflow/plan_file.hpp"
#include "workflow/replication_text.hpp"

namespace tra::rmm_testing {

using ia::Placement;
using ia::ReplicatedPosition;
using ia::Site;
using kernels::KernelCall;
using optimizer::RankedPlan;
using optimizer::SearchOptions;
using tra::testing::at;
using tra::testing::generated;

// L(I x K tiles) ⋈ R on `lk` = `rk`, 2x2 f64 tiles (32 bytes, 4 elements), then a sum over
// the output positions `by` when given.
inline Program joined(Shape left, Shape right, KeyPositions lk, KeyPositions rk, const char* kernel,
                      KeyPositions by = {}) {
    ProgramBuilder b("j", DType::F64);
    b.add_input("A", left, Shape(std::vector<std::int64_t>(left.size(), 2)), DType::F64,
                generated(), at("A"));
    b.add_input("B", right, Shape(std::vector<std::int64_t>(right.size(), 2)), DType::F64,
                generated(), at("B"));
    b.add_join("AB", "A", "B", lk, rk, KernelCall(kernel), at("AB"));
    if (by.empty()) {
        b.add_output("AB", "out.h5", "/AB", at("out"));
    } else {
        b.add_aggregate("C", "AB", by, KernelCall("add"), at("C"));
        b.add_output("C", "out.h5", "/C", at("out"));
    }
    return b.finish();
}

// C = A B with A, B 4 x 4 tiles of 2x2.
inline Program matmul4() {
    return joined(Shape{8, 8}, Shape{8, 8}, {1}, {0}, "matmul", {0, 2});
}

using tra::testing::kTile;

inline SearchOptions both_on(const Program& p, const Placement& a, const Placement& b) {
    SearchOptions o;
    o.top_k = 1000;
    o.input_placements[*p.find("A")] = a;
    o.input_placements[*p.find("B")] = b;
    return o;
}

using tra::testing::named;

inline std::set<std::string> join_strategies(const std::vector<RankedPlan>& plans) {
    std::set<std::string> out;
    for (const auto& r : plans) {
        const auto eq = r.name.find('=');
        out.insert(r.name.substr(eq + 1, r.name.find(',') - eq - 1));
    }
    return out;
}

// Tuples of a relation moving from `from` to `to` whose site set gains a site, key by key.
inline std::int64_t copies_received(const KeySet& keys, const Placement& from, const Placement& to,
                                    int S) {
    std::int64_t n = 0;
    for (const Key& k : keys) {
        const auto had = from.sites(k, S);
        for (Site s : to.sites(k, S))
            if (std::find(had.begin(), had.end(), s) == had.end()) ++n;
    }
    return n;
}

inline ReplicatedPosition copy(std::size_t from) {
    return {from, 1};
}
inline ReplicatedPosition fresh(std::int64_t copies) {
    return {std::nullopt, copies};
}

}  // namespace tra::rmm_testing
