#include "kernels/blas_threads.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "kernels/parallel_for.hpp"

// OpenBLAS's own entry points, weak so that another BLAS links without them.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));
extern "C" int openblas_get_num_threads() __attribute__((weak));
extern "C" char* openblas_get_corename() __attribute__((weak));
extern "C" int openblas_get_parallel() __attribute__((weak));  // 0 serial, 1 pthreads, 2 OpenMP
// Exported by OpenBLAS's pthreads builds though not in cblas.h: openblas_read_env reads its
// OPENBLAS_* variables again, blas_thread_shutdown_ ends its threads (it runs at fork).
extern "C" void openblas_read_env() __attribute__((weak));
extern "C" int blas_thread_shutdown_() __attribute__((weak));

namespace tra::kernels {

bool set_blas_threads(int threads) {
    set_kernel_threads(threads);  // the non-BLAS kernels use the same threads
    if (!openblas_set_num_threads) return false;
    openblas_set_num_threads(threads < 1 ? 1 : threads);
    return true;
}

int blas_threads() {
    return openblas_get_num_threads ? openblas_get_num_threads() : 0;
}

BlasOnCallingThread::BlasOnCallingThread() {
    if (!openblas_get_parallel || !openblas_get_num_threads || !openblas_set_num_threads) return;
    if (const int build = openblas_get_parallel(); build != 0 && build != 1) return;
    active_ = true;
    if (const int threads = openblas_get_num_threads(); threads > 1) {
        restore_ = threads;
        openblas_set_num_threads(1);  // it keeps its threads: down and up took ~20 ns here
    }
}

BlasOnCallingThread::~BlasOnCallingThread() {
    if (restore_ > 0) openblas_set_num_threads(restore_);
}

bool limit_blas_spin_wait() {
    if (std::getenv("OPENBLAS_THREAD_TIMEOUT")) return false;  // the user's choice stands
    // Only OpenBLAS's own thread server spins by this timeout and restarts after a shutdown; an
    // OpenMP build's threads follow OMP_WAIT_POLICY, and a serial one has none.
    if (!openblas_get_parallel || openblas_get_parallel() != 1) return false;
    if (!openblas_read_env || !blas_thread_shutdown_) return false;
    setenv("OPENBLAS_THREAD_TIMEOUT", "20", 0);  // 2^20 ticks; OpenBLAS takes 4 to 30
    openblas_read_env();
    blas_thread_shutdown_();
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
