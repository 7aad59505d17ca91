#pragma once
// Internal to lib/kernels: the pieces each kernel file contributes to the registry, and the
// checks every kernel shares so their error messages read alike.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/tile.hpp"
#include "kernels/einsum_gemm.hpp"
#include "kernels/kernel.hpp"

namespace tra::kernels::cpu {

// The kernels of each file; registry.cpp joins them into the one registry.
std::vector<Kernel> matmul_kernels();       // matmul.cpp
std::vector<Kernel> elementwise_kernels();  // elementwise.cpp
std::vector<Kernel> unary_kernels();        // unary.cpp
std::vector<Kernel> reduction_kernels();    // reductions.cpp
std::vector<Kernel> argmin_kernels();       // argmin.cpp
std::vector<Kernel> expression_kernels();   // expression_kernels.cpp
Kernel einsum_kernel();                     // einsum.cpp
Kernel diagonal_kernel();                   // diagonal.cpp
Kernel fill_padding_kernel();               // fill_padding.cpp

// fill_padding's parameters (spec "D:E", factor the value), shared by the CPU and GPU
// implementations; nullopt when the parameters are not of that form.
struct PaddingFill {
    std::int64_t dim = 0, extent = 0;
    double value = 0;
    // The first index along `dim` of a tile of shape `tile` at `where` that lies past the
    // extent: tile[dim] when none does, 0 when all do.
    std::int64_t first_padded(const Shape& tile, const TilePosition& where) const;
};
std::optional<PaddingFill> parse_padding_fill(const KernelParams& params);

// einsum's index arithmetic for operands of these shapes, shared by the CPU and GPU
// implementations. Labels are numbered output labels first; a stride is 0 where an operand
// lacks the label.
struct EinsumLayout {
    Shape shape;                        // the output's
    std::vector<std::int64_t> extents;  // per label
    std::size_t output_labels = 0;      // the first ones
    std::vector<std::int64_t> strides_a, strides_b, strides_out;
    // Matrix products (join mul, agg add): `plan` with every operand in canonical order
    // ([batch][rows][cols], permuted where not), after the unary sums `reduce` (specs, empty
    // where none) of labels summed inside one operand alone.
    bool gemm = false;
    std::string reduce[2];
    GemmPlan plan;
};
EinsumLayout einsum_layout(const KernelParams& params, std::span<const Shape> operands);

// diagonal's index arithmetic for an input tile of this shape, shared by the CPU and GPU
// implementations (throws Error when the tile does not fit the spec): the output's shape and,
// per output dimension, the input stride of one step along it (the sum of the strides of every
// input dimension with that label, so one step moves along all of them at once).
struct DiagonalLayout {
    Shape shape;
    std::vector<std::int64_t> strides;
};
DiagonalLayout diagonal_layout(const KernelParams& params, const Shape& input);

// argmin's global row-major index of local position `local` of a tile of `bound` at `where`;
// checks that the index is exact in T, since it is stored as a T.
template <class T>
T argmin_global_index(const Shape& bound, const TilePosition& where, std::int64_t local);

// C = op(A) * op(B), or C += op(A) * op(B) when `accumulate` (BLAS beta = 1), row-major, C is
// m x n and the inner extent k; A is m x k (k x m when trans_a), B is k x n (n x k when
// trans_b). Zero extents are fine. Without `accumulate` C's old contents are never read, so C
// may be uninitialised memory.
template <class T>
void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, const T* a,
          const T* b, T* c, bool accumulate = false);

// "<kernel> takes N operand(s), got M" when got != want; expect_operand_count throws it.
std::optional<Error> operand_count_problem(const std::string& kernel, std::size_t got,
                                           std::size_t want);
void expect_operand_count(const std::string& kernel, std::size_t got, std::size_t want);
// "<kernel>: expects a 2-D tile, got [2, 3, 4]" unless `shape` has rank `rank`.
std::optional<Error> rank_problem(const std::string& kernel, const Shape& shape, std::size_t rank);
// The operands' shared dtype; throws on null operands or mixed dtypes.
DType common_dtype(const std::string& kernel, std::span<const Tile* const> operands);
// Whether the operands live on the GPU; throws when some do and some do not.
bool on_device(const std::string& kernel, std::span<const Tile* const> operands);
// The operands' shapes, for calling a kernel's own output_shape from its apply.
std::vector<Shape> shapes_of(std::span<const Tile* const> operands);
// "[4, 3] x [5, 2]"
std::string shapes_str(std::span<const Shape> shapes, const std::string& separator = " x ");

}  // namespace tra::kernels::cpu
