#pragma once
// What one rank holds of one IA node's output while a plan runs (runtime/executor.hpp).
#include <cstdint>
#include <map>

#include "ia/plan.hpp"
#include "runtime/local_ops.hpp"

namespace tra::runtime {

// What one rank holds of one node's output: plain tuples, or partials (group -> source site ->
// partial) for nodes that hold partial results.
struct HeldTuples {
    Tuples tuples;
    std::map<Key, std::map<ia::Site, Tile>> partials;
    std::int64_t bytes = 0;

    void count() {
        bytes = 0;
        for (const auto& [k, t] : tuples) bytes += static_cast<std::int64_t>(t.bytes());
        for (const auto& [k, by] : partials)
            for (const auto& [s, t] : by) bytes += static_cast<std::int64_t>(t.bytes());
    }
    void clear() {
        Tuples().swap(tuples);
        partials.clear();
        bytes = 0;
    }
};

}  // namespace tra::runtime
