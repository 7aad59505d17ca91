// Which GPU implementation (and in-place accumulation) each registry kernel gets: the first
// file that claims its name.
#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/device_kernels.cuh"

namespace tra::kernels::cuda {

Kernel::Apply device_apply(const Kernel& kernel) {
    for (auto find : {product_apply, elementwise_apply, reduction_apply, argmin_apply, einsum_apply,
                      diagonal_apply, expression_apply, fill_padding_apply})
        if (Kernel::Apply apply = find(kernel)) return apply;
    return {};
}

Kernel::Accumulate device_accumulate(const Kernel& kernel) {
    for (auto find : {product_accumulate, einsum_accumulate})
        if (Kernel::Accumulate accumulate = find(kernel)) return accumulate;
    return {};
}

}  // namespace tra::kernels::cuda
