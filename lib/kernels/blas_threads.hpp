#pragma once
// How many threads the BLAS behind the kernels uses (OpenBLAS only; others keep their own
// settings). The runtime sets it per rank so ranks and BLAS threads share a host's cores
// (docs/runtime.md, "Ranks and BLAS threads").
#include <string>

namespace tra::kernels {

// Sets the BLAS threads of this process, and the non-BLAS kernels' threads (parallel_for.hpp)
// to the same; false when the BLAS linked in is not OpenBLAS (the kernels' are set all the same).
bool set_blas_threads(int threads);

// The BLAS's thread count now; 0 where it cannot be asked (not OpenBLAS).
int blas_threads();

// While alive, every BLAS call runs on its calling thread alone, so that a kernel may split its
// calls among its own threads (run_gemm_plan.cpp: the batches of a batched product); the BLAS's
// thread count is restored at its end. Only OpenBLAS's pthreads and serial builds allow it: an
// OpenMP build takes its count per calling thread from OpenMP, which the kernels' threads do not
// set, and another BLAS keeps its own threads; there `active()` is false and calls must not be
// split. Not to be nested or held on two threads at once.
class BlasOnCallingThread {
  public:
    BlasOnCallingThread();
    ~BlasOnCallingThread();
    BlasOnCallingThread(const BlasOnCallingThread&) = delete;
    BlasOnCallingThread& operator=(const BlasOnCallingThread&) = delete;
    bool active() const { return active_; }

  private:
    bool active_ = false;
    int restore_ = 0;  // the count to set again at the end; 0: none changed
};

// Makes OpenBLAS's idle threads sleep after about 2^20 clock ticks (~0.4 ms) instead of its
// default 2^28 (~0.1 s), unless the user set OPENBLAS_THREAD_TIMEOUT: they spin while idle
// (sched_yield in a loop), and beside the non-BLAS kernels' threads, which run right after a
// BLAS call, they took half a core from each (ffnn-xml on 1 rank x 2 threads: the maps after its
// products ran at 12 GB/s where they run at 25-29 alone). Call it first thing in main, before
// any other thread starts: it sets the environment variable, has OpenBLAS read it again and ends
// OpenBLAS's threads, which its next threaded call starts again with the shorter wait. Does
// nothing where the BLAS is not OpenBLAS's pthreads build or lacks those entry points.
bool limit_blas_spin_wait();  // whether it set the variable

// The kernel family OpenBLAS picked for this CPU ("Haswell", "SkylakeX", ...); empty when the
// BLAS linked in is not OpenBLAS.
std::string blas_core_name();

// Whether that is OpenBLAS's generic fallback ("Prescott"), which it takes for CPUs it does not
// recognise: about 3x slower than the right family on a modern x86 (docs/benchmarks.md). The
// user fixes it with OPENBLAS_CORETYPE.
bool blas_core_is_fallback();

}  // namespace tra::kernels
