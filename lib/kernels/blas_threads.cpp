#include "kernels/blas_threads.hpp"

// OpenBLAS's own entry point, weak so that another BLAS links without it.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));

namespace tra::kernels {

bool set_blas_threads(int threads) {
    if (!openblas_set_num_threads) return false;
    openblas_set_num_threads(threads < 1 ? 1 : threads);
    return true;
}

}  // namespace tra::kernels
