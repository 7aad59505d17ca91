#include "kernels/blas_info.hpp"

#include "kernels/blas_threads.hpp"

#if TRA_CUDA
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#endif

#ifndef TRA_BLAS_VENDOR
#define TRA_BLAS_VENDOR "unknown"
#endif

// Weak, as in blas_threads.cpp: with -DTRA_BLAS=BLIS or Generic the symbol is absent and the
// line says only what CMake chose, instead of the build failing to link.
extern "C" char* openblas_get_config() __attribute__((weak));

namespace tra::kernels {

namespace {

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
    return s;
}

#if TRA_CUDA
// CUDA encodes versions as 1000 * major + 10 * minor.
std::string cuda_version(int v) {
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}
#endif

}  // namespace

std::string blas_description() {
    std::string details;
    if (openblas_get_config) {
        if (const char* config = openblas_get_config()) details = trimmed(config);
    }
    if (const std::string core = blas_core_name(); !core.empty()) {
        details += (details.empty() ? "core " : ", core ") + core;
    }
    std::string line = TRA_BLAS_VENDOR;
    if (!details.empty()) line += " (" + details + ")";
    return line;
}

std::string cuda_description() {
#if TRA_CUDA
    int runtime = 0;
    int driver = 0;
    cudaRuntimeGetVersion(&runtime);
    // 0 without a driver (a build machine with no GPU): say so rather than "0.0".
    const std::string driver_text =
        cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0 ? cuda_version(driver) : "none";
    // cublasGetProperty needs no handle, so no GPU is touched to answer.
    int major = 0, minor = 0, patch = 0;
    cublasGetProperty(MAJOR_VERSION, &major);
    cublasGetProperty(MINOR_VERSION, &minor);
    cublasGetProperty(PATCH_LEVEL, &patch);
    return "CUDA runtime " + cuda_version(runtime) + ", driver " + driver_text + ", cuBLAS " +
           std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
#else
    return "";
#endif
}

}  // namespace tra::kernels
