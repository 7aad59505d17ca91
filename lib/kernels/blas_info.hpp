#pragma once
// Which BLAS (and, in a CUDA build, which CUDA runtime and cuBLAS) this build of tra calls, for
// `tra --version`: a slow or wrong result is often the library, not tra, and the version
// line is what a bug report or a centre's module check asks for first.
#include <string>

namespace tra::kernels {

// The BLAS this build was configured for (TRA_BLAS: "OpenBLAS", "BLIS", "Generic", ...), then
// what the library says of itself where it can: OpenBLAS's build configuration and the kernel
// family it picked for this CPU. One line, e.g.
// "OpenBLAS (OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64, core Haswell)".
std::string blas_description();

// "CUDA runtime 12.4, driver 12.6, cuBLAS 12.4.5" in a -DTRA_CUDA=ON build; empty otherwise.
std::string cuda_description();

}  // namespace tra::kernels
