#pragma once
// An einsum kernel's spec ("ik,kj->ij") and what follows from it and its operands' shapes alone:
// the labels and their extents, the output's shape, and how a matrix product's operands reach
// its GEMMs. Shared by the CPU kernel and its GPU layout (einsum.cpp), so the two read a spec
// alike.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/checked.hpp"
#include "core/index_vector.hpp"
#include "kernels/einsum_loop.hpp"
#include "kernels/kernel.hpp"

namespace tra::kernels::cpu::einsum {

struct Spec {
    std::string text;                 // as written, for messages
    std::vector<std::string> inputs;  // labels of each operand
    std::string output;
};

// The spec of `p`, its join and agg checked; throws Error naming what is wrong.
Spec checked_spec(const KernelParams& p);
// Every label once, the output's first, with its extent in `ops`; the problem where the
// operands do not fit the spec.
Checked<Labels> label_extents(const Spec& spec, std::span<const Shape> ops);
// The output's extents.
Shape output_shape(const Spec& spec, const Labels& l);
Checked<Shape> einsum_shape(const Spec& spec, std::span<const Shape> ops);
// Two operands, join mul, agg add: a batch of GEMMs.
bool is_matrix_product(const Spec& spec, const KernelParams& p);
// A matrix product's operands as its GEMMs read them: each operand's labels once those summed
// inside it alone are summed first, and that sum's spec ("" where none).
struct ProductOperands {
    std::string labels[2];
    std::string reduce[2];
};

ProductOperands product_operands(const Spec& spec);
// Each letter's extent, 1 for letters the spec does not use (plan_gemm's argument).
std::vector<std::int64_t> extent_of_letter(const Labels& l);

}  // namespace tra::kernels::cpu::einsum
