// The GPU entry points of lib/kernels. With -DTRA_CUDA=ON they forward to the CUDA backend in
// lib/kernels/cuda; a CPU-only build answers that no GPU backend exists.
#include "kernels/gpu.hpp"

#include "core/error.hpp"

#if TRA_CUDA
#include "kernels/cuda/cuda_backend.hpp"
#endif

namespace tra::kernels {

#if TRA_CUDA

bool gpu_backend_built() {
    return true;
}
int gpu_count() {
    return cuda::device_count();
}
GpuInfo use_gpu(int index) {
    return cuda::use_device(index);
}
GpuInfo current_gpu() {
    return cuda::current_device();
}
void synchronize_gpu() {
    cuda::synchronize_device();
}

#else

namespace {
Error not_built() {
    return Error(
        "this tra was built without the GPU backend; rebuild with -DTRA_CUDA=ON "
        "(docs/gpu.md) or run with --device cpu");
}
}  // namespace

bool gpu_backend_built() {
    return false;
}
int gpu_count() {
    return 0;
}
GpuInfo use_gpu(int) {
    throw not_built();
}
GpuInfo current_gpu() {
    throw not_built();
}
void synchronize_gpu() {}

#endif

}  // namespace tra::kernels
