#pragma once
// Internal to lib/kernels/cuda: what each file contributes to the GPU side of the registry.
// Output shapes and operand checks are the CPU kernel's own (Kernel::output_shape), so both
// devices accept and refuse the same operands with the same messages.
#include <cstdint>
#include <span>

#include "core/tile.hpp"
#include "kernels/cpu_kernels.hpp"
#include "kernels/kernel.hpp"

namespace tra::kernels::cuda {

// Each file's GPU implementation of `kernel`, or empty when the kernel is not one of its own.
Kernel::Apply product_apply(const Kernel& kernel);       // matmul.cu
Kernel::Apply elementwise_apply(const Kernel& kernel);   // elementwise.cu
Kernel::Apply reduction_apply(const Kernel& kernel);     // reductions.cu
Kernel::Apply argmin_apply(const Kernel& kernel);        // argmin.cu
Kernel::Apply einsum_apply(const Kernel& kernel);        // einsum.cu
Kernel::Apply diagonal_apply(const Kernel& kernel);      // diagonal.cu
Kernel::Apply expression_apply(const Kernel& kernel);    // expression.cu
Kernel::Apply fill_padding_apply(const Kernel& kernel);  // fill_padding.cu
// Each file's in-place accumulation (Kernel::accumulate_on_device), or empty.
Kernel::Accumulate product_accumulate(const Kernel& kernel);  // matmul.cu
Kernel::Accumulate einsum_accumulate(const Kernel& kernel);   // einsum.cu

// cuBLAS's row-major C = op(A) op(B), or C += op(A) op(B) when `accumulate` (beta = 1), for
// `batch` products of contiguous blocks (A: m x k, B: k x n, C: m x n each, before transposes),
// arguments otherwise as cpu::gemm's; pointers are device memory. Without `accumulate` C's old
// contents are never read.
template <class T>
void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, const T* a,
          const T* b, T* c, bool accumulate = false, std::int64_t batch = 1);

// tile_permute.hpp's permute on device memory (tile_permute.cu).
template <class T>
void permute(const T* in, const Shape& shape, std::span<const std::size_t> perm, T* out,
             bool accumulate = false);

// The output tile on the GPU for these operands: dtype checked, shape by `output_shape`.
inline Tile device_output(const Kernel& kernel, std::span<const Tile* const> ops,
                          const KernelParams& params, DType& dtype) {
    dtype = cpu::common_dtype(kernel.name, ops);
    std::vector<Shape> shapes = cpu::shapes_of(ops);
    return Tile(dtype, kernel.output_shape(shapes, params).value(), Residence::Device);
}

}  // namespace tra::kernels::cuda
