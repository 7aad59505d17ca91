#pragma once
// The single-process oracle: evaluates a typed program straight from the TRA definitions (paper
// section 3), one operator at a time, on relations held in memory. Obviously correct rather than
// fast; every distributed plan is tested against it.
#include <map>

#include "core/relation.hpp"
#include "tra/program.hpp"

namespace tra::runtime {

class ReferenceEvaluator {
public:
    explicit ReferenceEvaluator(const Program& program) : program_(program) {}

    // The relation computed by node `id` (memoized; computes what it depends on first).
    const TensorRelation& evaluate(NodeId id);

private:
    TensorRelation compute(const Node& node);

    const Program& program_;
    std::map<NodeId, TensorRelation> results_;
};

}  // namespace tra::runtime
