#include "kernels/blas_threads.hpp"

#include <algorithm>
#include <cctype>

#include "kernels/parallel_for.hpp"

// OpenBLAS's own entry points, weak so that another BLAS links without them.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));
extern "C" char* openblas_get_corename() __attribute__((weak));

namespace tra::kernels {

bool set_blas_threads(int threads) {
    set_kernel_threads(threads);  // the non-BLAS kernels use the same threads
    if (!openblas_set_num_threads) return false;
    openblas_set_num_threads(threads < 1 ? 1 : threads);
    return true;
}

std::string blas_core_name() {
    if (!openblas_get_corename) return "";
    const char* name = openblas_get_corename();
    return name ? name : "";
}

bool blas_core_is_fallback() {
    std::string name = blas_core_name();
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return name == "prescott";
}

}  // namespace tra::kernels
