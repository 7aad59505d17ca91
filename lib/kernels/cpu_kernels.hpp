#pragma once
// Internal to lib/kernels: the pieces each kernel file contributes to the registry, and the
// checks every kernel shares so their error messages read alike.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/tile.hpp"
#include "kernels/kernel.hpp"

namespace tra::kernels::cpu {

// The kernels of each file; registry.cpp joins them into the one registry.
std::vector<Kernel> matmul_kernels();       // matmul.cpp
std::vector<Kernel> elementwise_kernels();  // elementwise.cpp
std::vector<Kernel> unary_kernels();        // unary.cpp
std::vector<Kernel> reduction_kernels();    // reductions.cpp
std::vector<Kernel> argmin_kernels();       // argmin.cpp
Kernel einsum_kernel();                     // einsum.cpp

// einsum's operand count (1 or 2) after checking params.spec, join_op and agg_op.
int einsum_operand_count(const KernelParams& params);

// C = op(A) * op(B), row-major, C is m x n and the inner extent k; A is m x k (k x m when
// trans_a), B is k x n (n x k when trans_b). Zero extents are fine.
template <class T>
void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
          const T* a, const T* b, T* c);

// Throws "<kernel> takes N operand(s), got M".
void expect_operand_count(const std::string& kernel, std::size_t got, std::size_t want);
// Throws unless `shape` has rank `rank`: "<kernel>: expects a 2-D tile, got [2, 3, 4]".
void expect_rank(const std::string& kernel, const Shape& shape, std::size_t rank);
// The operands' shared dtype; throws on null operands or mixed dtypes.
DType common_dtype(const std::string& kernel, std::span<const Tile* const> operands);
// The operands' shapes, for calling a kernel's own output_shape from its apply.
std::vector<Shape> shapes_of(std::span<const Tile* const> operands);
// "[4, 3] x [5, 2]"
std::string shapes_str(std::span<const Shape> shapes, const std::string& separator = " x ");

}  // namespace tra::kernels::cpu
