#pragma once
// The kernel registry's vocabulary: what a kernel is, the algebraic properties rewrite rules may
// rely on, and a call of a kernel with its parameters. Rules and validators consult properties,
// never kernel names.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/checked.hpp"
#include "core/index_vector.hpp"
#include "core/tile.hpp"

namespace tra::kernels {

// Parameters a kernel call may carry. Which ones a kernel reads is part of its documentation.
struct KernelParams {
    std::optional<double> factor;  // scale(factor)
    std::string spec;              // einsum: tile-level contraction, e.g. "ik,kj->ij"
    std::string join_op = "mul";   // einsum: scalar combination of the operands
    std::string agg_op = "add";    // einsum: scalar reduction over summed labels
    std::string expr;              // expr, expr_join: element-wise expression text ("x * 2")

    friend bool operator==(const KernelParams&, const KernelParams&) = default;
};

// Algebraic facts about a kernel, for the rewrite rules and the validator.
struct KernelProperties {
    bool associative = false;
    bool commutative = false;
    bool elementwise = false;           // out[i] depends only on in[i] of each operand
    std::optional<double> identity;     // e with op(e, x) == x
    std::optional<double> annihilator;  // z with op(z, x) == z
    // Names of aggregation kernels g this kernel distributes over: f(g(a,b),c) == g(f(a,c),f(b,c)).
    // For binary kernels the registry lists g only when f distributes from both sides, i.e. also
    // f(c,g(a,b)) == g(f(c,a),f(c,b)), so a rule may push g through either operand. For unary
    // kernels it means f(g(a,b)) == g(f(a),f(b)).
    std::vector<std::string> distributes_over;
    // The aggregation kernel g that Kernel::accumulate folds with: accumulate computes
    // acc = g(acc, f(operands)) in place. Empty for kernels without accumulate.
    std::string accumulates_with;
    // The kernel reads whole rows (softmax_rows, row-wise argmin): the relation's tiles must
    // span every column, i.e. key position 1 is always 0.
    bool requires_whole_rows = false;
    // The kernel reads where its tile sits in the relation (argmin's global index).
    bool reads_tile_position = false;
    // f(0, ..., 0) == 0 element by element: tiles of zeros give a tile of zeros, so a relation's
    // absent (all-zero) tiles may stay absent through it. Every kernel declares it; false when
    // not (or not for every parameter), which is always safe.
    bool zero_preserving = false;
    // A tile of zeros as either operand gives a tile of zeros (mul, the matmul family, einsums
    // that join by mul), whatever the other operand: a join with it needs only the pairs where
    // both tiles are present, so absent tiles of sparse relations stay absent (an inner join).
    // Binary kernels; false when not known, which is always safe.
    bool zero_annihilates = false;
    // f is finite wherever its operands are: no pole and no edge of its domain (not log, sqrt,
    // rsqrt, reciprocal, div), overflow aside. A product whose factor is 0 is 0 only when the
    // other factors are finite (0 * inf is NaN), so padding is followed through products only
    // while it is finite (tra/tiling_classes.hpp). False when not known, which is always safe.
    bool finite = false;
    // The kernel as a sum of products over its operands' tile dimensions, in einsum notation
    // ("mk,kn->mn" for matmul): one letter per tile dimension of each operand and of the output;
    // a letter in both operands and not in the output is summed over. Empty when the kernel is
    // not one. Padding is followed through joins with such kernels (tra/tiling_classes.hpp).
    std::string sum_of_products;

    // May fold a group's tiles in any order: the kernels an aggregation accepts.
    bool aggregation() const { return associative && commutative; }
};

// The BLAS work of one kernel call: `count` gemm calls, each of an m x k by k x n product. The
// time model prices each at the rate measured for its shape, or else at the gemm rate of its
// size plus what a thin or flat product moves beyond a square one (ia::blas_seconds).
struct GemmCalls {
    std::int64_t count = 0;
    std::int64_t m = 0, n = 0, k = 0;

    friend bool operator==(const GemmCalls&, const GemmCalls&) = default;
};

// Where the tile being processed sits: its key and the frontier of its relation, so kernels like
// argmin can report global element indices (global index = key * bound + local index).
struct TilePosition {
    Key key;
    Frontier frontier;
};

struct Kernel {
    std::string name;
    // 1: transform kernel; 2: join projection or aggregation. A kernel whose operand count
    // depends on its parameters (einsum's spec) says the most and declares operand_count: ask
    // KernelCall::operand_count() for a call's real count.
    int arity = 1;
    KernelProperties properties;
    // The properties of a call with these parameters, where they depend on them (an
    // expression's f(0) = 0, einsum's join). Empty: every call has `properties`.
    std::function<KernelProperties(const KernelParams&)> properties_of;
    std::string summary;  // one line for `tra kernels` and docs

    // How many operands a call with these parameters takes, after checking the parameters
    // (throws Error when they are bad). Empty: every call takes `arity`.
    std::function<int(const KernelParams&)> operand_count;
    // How a call prints, e.g. "einsum(ik,kj->ij; join=mul, agg=add)". Empty: the name, with
    // params.factor in parentheses when set ("scale(0.5)").
    std::function<std::string(const KernelParams&)> describe;
    // Floating-point operations of one call on operands of these shapes, for the cost and time
    // models (2*m*n*k for a matrix product). Empty for kernels whose work the models do not
    // count (element-wise and reductions count 0).
    std::function<std::int64_t(std::span<const Shape> operands, const KernelParams&)> flops;
    // The BLAS gemm calls one call makes on operands of these shapes (how many, and the m, n, k
    // of each), or nullopt when this call runs a loop instead: what the time model prices the
    // call by (gemm rates, or the loop rate). Empty for kernels that never run as gemm.
    std::function<std::optional<GemmCalls>(std::span<const Shape> operands, const KernelParams&)>
        gemm_calls;
    // The bytes of memory one call on operands of these shapes (elements of `element_bytes`)
    // reads, for a kernel that reads less than all of its operands: a diagonal reads one element
    // of each of its input's lines, or whole rows where the diagonal's rows are contiguous. The
    // time model charges a transform's pass over its input by it. Empty: all of them.
    std::function<std::int64_t(std::span<const Shape> operands, const KernelParams&,
                               std::int64_t element_bytes)>
        bytes_read;

    // Output bound for operands of these bounds, or the problem (an Error without location)
    // when the operands do not fit the kernel.
    std::function<Checked<Shape>(std::span<const Shape> operands, const KernelParams&)>
        output_shape;
    using Apply = std::function<Tile(std::span<const Tile* const> operands, const KernelParams&,
                                     const TilePosition&)>;
    // Computes the output tile. Operands share one dtype; the output has that dtype.
    Apply apply;
    // The same on operands that live on the GPU, giving a GPU tile; empty in a CPU-only build
    // (lib/kernels/cuda fills it in when built with -DTRA_CUDA=ON).
    Apply apply_on_device;
    // acc += f(operands) in place, where f is this kernel and += the kernel named by
    // properties.accumulates_with (`add`), for host tiles; false when this call cannot (then
    // nothing is touched). Lets a join followed by a sum keep one accumulator per group instead of
    // materialising every product (gemm with beta = 1). Empty for kernels that never can.
    using Accumulate =
        std::function<bool(Tile& acc, std::span<const Tile* const> operands, const KernelParams&)>;
    Accumulate accumulate;
    // The same for an accumulator and operands on the GPU (cuBLAS gemm with beta = 1); empty in
    // a CPU-only build and for kernels whose GPU implementation cannot.
    Accumulate accumulate_on_device;
};

// A kernel together with the parameters of one use of it, e.g. scale(0.5).
class KernelCall {
  public:
    KernelCall() = default;
    // Looks the name up in the registry; throws Error listing the known kernels if unknown.
    // Where Kernel::operand_count is declared it also checks the params (einsum's spec and
    // join/agg operators), since they fix the operand count.
    KernelCall(const std::string& name, KernelParams params = {});

    const Kernel& kernel() const { return *kernel_; }
    const std::string& name() const { return kernel_->name; }
    const KernelParams& params() const { return params_; }
    // Kernel::properties_of for this call's params where declared, Kernel::properties otherwise.
    const KernelProperties& properties() const { return properties_; }
    // The registry's arity; einsum's is 2 whatever its spec. Prefer operand_count().
    int arity() const { return kernel_->arity; }
    // How many operands this call takes: Kernel::operand_count of the params where declared
    // (einsum "ij->ji": 1, "ik,kj->ij": 2), kernel().arity otherwise.
    int operand_count() const;
    // Kernel::flops for operands of these shapes; 0 where the kernel declares none.
    std::int64_t flops(std::span<const Shape> operands) const;
    // Kernel::gemm_calls for operands of these shapes; nullopt where the kernel declares none.
    std::optional<GemmCalls> gemm_calls(std::span<const Shape> operands) const;
    // Kernel::bytes_read for operands of these shapes; nullopt where the kernel declares none
    // (it reads all of its operands).
    std::optional<std::int64_t> bytes_read(std::span<const Shape> operands,
                                           std::int64_t element_bytes) const;
    // Whether a join with this call followed by an aggregation with `aggregate` can keep one
    // accumulator per group (accumulate below): this kernel accumulates, with `aggregate`'s
    // kernel. Says nothing about particular operands, which accumulate may still decline.
    bool can_accumulate_into(const KernelCall& aggregate) const;
    // Whether this call distributes over `g` (KernelProperties::distributes_over):
    // f(g(a,b),c) == g(f(a,c),f(b,c)), or f(g(a,b)) == g(f(a),f(b)) for a unary f.
    bool distributes_over(const KernelCall& g) const;

    // All three check the operand count against operand_count(); apply also checks that the
    // operands share one dtype and one residence, and runs the GPU implementation when they
    // live on the GPU. try_output_shape returns the problem (an Error without location) when
    // the operands do not fit; the others throw it.
    Checked<Shape> try_output_shape(std::span<const Shape> operands) const;
    Shape output_shape(std::span<const Shape> operands) const;
    Tile apply(std::span<const Tile* const> operands, const TilePosition& where = {}) const;
    // acc += this call on the operands (+ being `add`), in place; false, with acc untouched,
    // when the kernel cannot accumulate these operands (Kernel::accumulate).
    bool accumulate(Tile& acc, std::span<const Tile* const> operands) const;
    // "matmul", "scale(0.5)", "einsum(ik,kj->ij; join=mul, agg=add)"
    std::string str() const;

    friend bool operator==(const KernelCall& a, const KernelCall& b) {
        return a.kernel_ == b.kernel_ && a.params_ == b.params_;
    }

  private:
    const Kernel* kernel_ = nullptr;
    KernelParams params_;
    // Derived from kernel_ and params_, so not part of equality.
    int operand_count_ = 0;
    KernelProperties properties_;
};

}  // namespace tra::kernels
