#pragma once
// The single-process oracle: evaluates a typed program straight from the TRA definitions (paper
// section 3), one operator at a time, on relations held in memory. Obviously correct rather than
// fast; every distributed plan is tested against it.
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "core/relation.hpp"
#include "tra/program.hpp"

namespace tra::runtime {

class ReferenceEvaluator {
  public:
    explicit ReferenceEvaluator(const Program& program) : program_(program) {}

    // The relation computed by node `id` in the current iteration (memoized; computes what it
    // depends on first).
    const TensorRelation& evaluate(NodeId id);

    // Loops (Program::repeat): ends the current iteration. Every carried input takes its step's
    // value; every other result is forgotten except the inputs that are not carried.
    void next_iteration();
    std::int64_t iteration() const { return iteration_; }  // 1-based

    // The value of every program output at its iteration (Output::iteration, 0: the last), in
    // program.outputs order: runs every iteration of a loop. `each` (if set) is called with
    // every output as soon as it is known.
    std::vector<TensorRelation> evaluate_outputs(
        const std::function<void(std::size_t, const TensorRelation&)>& each = {});

  private:
    TensorRelation compute(const Node& node);

    const Program& program_;
    std::map<NodeId, TensorRelation> results_;
    std::int64_t iteration_ = 1;
};

}  // namespace tra::runtime
