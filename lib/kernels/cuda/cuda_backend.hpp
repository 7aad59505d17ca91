#pragma once
// The CUDA backend's face to the rest of lib/kernels (gpu.cpp, registry.cpp): plain C++, so
// files compiled by the host compiler never see a CUDA header. Built only with -DTRA_CUDA=ON.
#include <string>

#include "kernels/gpu.hpp"
#include "kernels/kernel.hpp"

namespace tra::kernels::cuda {

int device_count();
GpuInfo use_device(int index);
GpuInfo current_device();
void synchronize_device();  // nothing when no device was selected

// The GPU implementation of `kernel` (output shapes and checks come from its CPU definition);
// empty when the kernel has none.
Kernel::Apply device_apply(const Kernel& kernel);
// Its in-place accumulation on the GPU (Kernel::accumulate_on_device); empty when it has none.
Kernel::Accumulate device_accumulate(const Kernel& kernel);

}  // namespace tra::kernels::cuda
