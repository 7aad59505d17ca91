#pragma once
// The order in which a multi-operand einsum joins its operands, chosen by cost. Whole-tensor
// extents are known, so the cost of an order is exact: a pairwise contraction of two operands
// costs the product of the extents of every label either holds (one multiply-add per point of
// that box), and an order costs the sum over its contractions. The chosen order has the fewest
// flops; among those, the smallest largest intermediate. Found by dynamic programming over
// subsets of operands (opt_einsum's "dp"/"optimal") up to kOptimalOperands, greedily beyond.
//
// Orders are written as opt_einsum writes contraction paths: a list of pairs (i, j), i < j,
// indices into the current list of operands; both are removed and their result is appended.
#include <array>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace tra {

struct ContractionProblem {
    std::vector<std::string> operands;  // labels of each operand ('a'..'z', each once per operand)
    std::string output;
    std::array<double, 26> extent{};  // whole-tensor extent of each label, 'a' first
    // Whether a label can be summed out as soon as no remaining operand nor the output holds it
    // (the join op distributes over the agg op). Otherwise every label stays until the last join.
    bool early_sums = true;
};

using ContractionPath = std::vector<std::pair<std::size_t, std::size_t>>;

struct ContractionOrder {
    ContractionPath path;
    double flops = 0;                 // sum over the contractions of the product of their extents
    double largest_intermediate = 0;  // elements of the largest result before the last one
};

// Operand counts up to this are ordered optimally; beyond it greedily.
inline constexpr std::size_t kOptimalOperands = 8;

// The order to lower with: left to right when early sums are not allowed; otherwise the cheapest
// order found (optimal or greedy by operand count), or left to right when that is no cheaper,
// so an einsum already written in a best order is lowered as written.
ContractionOrder choose_contraction_order(const ContractionProblem& problem);

// The minimum-flops order over every pairwise contraction tree, outer products included.
ContractionOrder optimal_order(const ContractionProblem& problem);
// Repeatedly contracts the cheapest pair, preferring pairs that share a label.
ContractionOrder greedy_order(const ContractionProblem& problem);
// ((0, 1), 2), ...: operands joined as written.
ContractionOrder written_order(const ContractionProblem& problem);
// The cost of `path`; throws Error unless it is a valid path for the problem's operand count.
ContractionOrder evaluate_order(const ContractionProblem& problem, const ContractionPath& path);

}  // namespace tra
