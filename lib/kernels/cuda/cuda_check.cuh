#pragma once
// Internal to lib/kernels/cuda: turning CUDA and cuBLAS status codes into tra::Error, launch
// geometry, and the cuBLAS handle of the selected device.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "kernels/gpu_geometry.hpp"

namespace tra::kernels::cuda {

inline void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
        throw Error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(status), {},
                    ErrorKind::Failed);
}

inline void check(cublasStatus_t status, const char* what) {
    if (status != CUBLAS_STATUS_SUCCESS)
        throw Error(std::string("cuBLAS: ") + what + ": " + cublasGetStatusString(status), {},
                    ErrorKind::Failed);
}

// After a kernel launch: reports a bad launch configuration at once, not at the next copy.
inline void check_launch(const char* kernel) {
    check(cudaGetLastError(), kernel);
}

using gpu_geometry::blocks_for;
using gpu_geometry::kThreads;

// The cuBLAS handle of the current device, created on first use.
cublasHandle_t blas_handle();

}  // namespace tra::kernels::cuda
