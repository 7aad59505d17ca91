#pragma once
// Finding a plan in what the search returned, for tests that check one strategy's costs.
#include <string>
#include <vector>

#include "optimizer/search.hpp"

namespace tra::testing {

// The plan called `name` (e.g. "AB=grid,C=local") among `plans`, or nullptr when the search did
// not return it (tests then fail on a REQUIRE, naming the plan).
inline const optimizer::RankedPlan* named(const std::vector<optimizer::RankedPlan>& plans,
                                          const std::string& name) {
    for (const auto& r : plans)
        if (r.name == name) return &r;
    return nullptr;
}

}  // namespace tra::testing
