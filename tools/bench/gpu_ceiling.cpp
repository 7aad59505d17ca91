// The GPU compute ceiling for C[I,J] = A[I,K] B[K,J]: one cuBLAS gemm through tra's own matmul
// kernel on tiles already in GPU memory, nothing else (no planning, no HDF5, no transfers).
// `tra run --device gpu` on one rank can at best approach this.
// Usage: bench_gpu_ceiling I K J REPEATS [f64|f32]
// Prints {"seconds": [...], "tflops": best, "first_seconds": s}: seconds per repeat after a
// first product, timed on its own (first_seconds: what a new process pays once).
// Exits 77 when this build has no GPU backend or no GPU is visible.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/tile.hpp"
#include "kernels/gpu.hpp"
#include "kernels/kernel.hpp"

int main(int argc, char** argv) {
    if (argc < 5) {
        std::fprintf(stderr, "usage: bench_gpu_ceiling I K J REPEATS [f64|f32]\n");
        return 2;
    }
    if (!tra::kernels::gpu_backend_built() || tra::kernels::gpu_count() == 0) {
        std::fprintf(stderr, "bench_gpu_ceiling: no GPU backend or no GPU visible\n");
        return 77;
    }
    const std::int64_t I = std::atoll(argv[1]), K = std::atoll(argv[2]), J = std::atoll(argv[3]);
    const int repeats = std::atoi(argv[4]);
    const std::string element = argc > 5 ? argv[5] : "f64";
    if (I <= 0 || K <= 0 || J <= 0 || repeats <= 0 || (element != "f64" && element != "f32")) {
        std::fprintf(stderr,
                     "bench_gpu_ceiling: extents and repeats must be positive, "
                     "the element f64 or f32\n");
        return 2;
    }
    tra::kernels::use_gpu(0);
    const tra::DType d = element == "f32" ? tra::DType::F32 : tra::DType::F64;
    tra::Tile a(d, tra::Shape{I, K}), b(d, tra::Shape{K, J});
    for (std::int64_t i = 0; i < a.elements(); ++i) a.set(i, double(i % 7) - 3);
    for (std::int64_t i = 0; i < b.elements(); ++i) b.set(i, double(i % 5) - 2);
    const tra::Tile da = a.to(tra::Residence::Device), db = b.to(tra::Residence::Device);
    const tra::Tile* ops[] = {&da, &db};
    const tra::kernels::KernelCall matmul("matmul");
    // The first product pays what every new process pays once: cuBLAS picking and loading its
    // kernel (CUDA loads modules lazily), growing the memory pool. Timed, then left out.
    const auto first0 = std::chrono::steady_clock::now();
    matmul.apply(ops);
    tra::kernels::synchronize_gpu();
    const double first =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - first0).count();
    std::string times;
    double best = 1e300;
    for (int r = 0; r < repeats; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        const tra::Tile c = matmul.apply(ops);
        tra::kernels::synchronize_gpu();
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        best = s < best ? s : best;
        times += (r ? ", " : "") + std::to_string(s);
    }
    std::printf("{\"seconds\": [%s], \"tflops\": %.2f, \"first_seconds\": %.6f}\n", times.c_str(),
                2.0 * double(I) * double(K) * double(J) / best / 1e12, first);
    return 0;
}
