#pragma once
// The contraction order each lowered einsum follows, read back from a typed program (a
// workflow's, or a plan file's), for `tra validate` and `tra explain`. The joins lowered from one
// einsum step form a binary tree over its operands; the last of them in the program is the root.
#include <string>
#include <vector>

#include "tra/program.hpp"

namespace tra {

struct EinsumOrder {
    std::string step;  // the einsum step
    // Each operand by its labels, each join in parentheses, left first: "(((abcd,ea),fb),gc)".
    std::string tree;
    // Sum over the joins of the product of the whole-tensor extents of every label either side
    // holds: the cost contraction_order.hpp minimises.
    double flops = 0;

    // "einsum Z: order (((abcd,ea),fb),gc) flops 1048576"
    std::string str() const;
};

// One entry per einsum step with two or more operands, in program order.
std::vector<EinsumOrder> einsum_orders(const Program& program);

}  // namespace tra
