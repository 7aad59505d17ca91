#pragma once
// How many threads the BLAS behind the kernels uses (OpenBLAS only; others keep their own
// settings). The runtime sets it per rank so ranks and BLAS threads share a host's cores
// (docs/runtime.md, "Ranks and BLAS threads").
namespace tra::kernels {

// Sets the BLAS threads of this process; false when the BLAS linked in is not OpenBLAS.
bool set_blas_threads(int threads);

}  // namespace tra::kernels
