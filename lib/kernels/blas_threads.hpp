#pragma once
// How many threads the BLAS behind the kernels uses (OpenBLAS only; others keep their own
// settings). The runtime sets it per rank so ranks and BLAS threads share a host's cores
// (docs/runtime.md, "Ranks and BLAS threads").
#include <string>

namespace tra::kernels {

// Sets the BLAS threads of this process, and the non-BLAS kernels' threads (parallel_for.hpp)
// to the same; false when the BLAS linked in is not OpenBLAS (the kernels' are set all the same).
bool set_blas_threads(int threads);

// The kernel family OpenBLAS picked for this CPU ("Haswell", "SkylakeX", ...); empty when the
// BLAS linked in is not OpenBLAS.
std::string blas_core_name();

// Whether that is OpenBLAS's generic fallback ("Prescott"), which it takes for CPUs it does not
// recognise: about 3x slower than the right family on a modern x86 (docs/benchmarks.md). The
// user fixes it with OPENBLAS_CORETYPE.
bool blas_core_is_fallback();

}  // namespace tra::kernels
