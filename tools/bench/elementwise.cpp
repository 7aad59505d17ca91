// How close do tra's element-wise kernels come to memory bandwidth? Times each kernel on one
// tile (64 MiB of f64 by default) against memcpy of the same bytes into a warm buffer: both read
// the tile once and write one of the same size, so the ratio of their seconds is the fraction
// of memcpy's bandwidth the kernel reaches (issue 22's target: >= 0.5 for relu, silu and
// x * rsqrt(x * x + 1e-6) on one thread; compute-bound ones such as erf and pow are reported).
// Threads: OPENBLAS_NUM_THREADS (tra's non-BLAS kernels use as many), 1 when unset.
// Usage: bench_elementwise [REPEATS] [--mib N] [--cpu-time]
// Prints one line per kernel: best seconds, GB/s (read + written), and the ratio to memcpy.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "core/tile.hpp"
#include "kernels/kernel.hpp"

namespace {

bool cpu_time = false;

double now() {
    if (!cpu_time)
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

template <class F>
double best_seconds(int repeats, F f) {
    f();  // warm: first touch of the output, the mapping cache
    double best = 1e300;
    for (int r = 0; r < repeats; ++r) {
        const double t0 = now();
        f();
        best = std::min(best, now() - t0);
    }
    return best;
}

struct Case {
    std::string label;  // as printed
    tra::kernels::KernelCall call;
};

tra::kernels::KernelCall expression(const std::string& text) {
    tra::kernels::KernelParams p;
    p.expr = text;
    return tra::kernels::KernelCall("expr", p);
}

}  // namespace

int main(int argc, char** argv) {
    int repeats = 5;
    std::int64_t mib = 64;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--cpu-time") {
            cpu_time = true;
        } else if (a == "--mib" && i + 1 < argc) {
            mib = std::atoll(argv[++i]);
        } else if (a[0] != '-') {
            repeats = std::atoi(a.c_str());
        } else {
            std::fprintf(stderr, "usage: bench_elementwise [REPEATS] [--mib N] [--cpu-time]\n");
            return 2;
        }
    }
    const std::int64_t n = mib * 1024 * 1024 / 8;
    tra::Tile x(tra::DType::F64, tra::Shape{n});
    double* xs = x.data<double>();
    for (std::int64_t i = 0; i < n; ++i) xs[i] = double(i % 1000) / 125.0 - 4.0;  // [-4, 4)
    std::vector<double> copy(static_cast<std::size_t>(n));
    const double bytes = 2.0 * 8.0 * static_cast<double>(n);

    const double memcpy_s = best_seconds(
        repeats, [&] { std::memcpy(copy.data(), xs, static_cast<std::size_t>(n) * 8); });
    std::printf("%-34s %9.4f s %7.2f GB/s  1.00\n", "memcpy", memcpy_s, bytes / memcpy_s / 1e9);

    const std::vector<Case> cases = {
        {"relu", tra::kernels::KernelCall("relu")},
        {"silu", tra::kernels::KernelCall("silu")},
        {"gelu", tra::kernels::KernelCall("gelu")},
        {"exp", tra::kernels::KernelCall("exp")},
        {"expr x * rsqrt(x * x + 1e-6)", expression("x * rsqrt(x * x + 1e-6)")},
        {"expr max(x, 0)", expression("max(x, 0)")},
        {"expr x * sigmoid(x)", expression("x * sigmoid(x)")},
        {"expr erf(x)", expression("erf(x)")},
        {"expr pow(x, 3)", expression("pow(x, 3)")},
    };
    const tra::Tile* operand[] = {&x};
    for (const Case& c : cases) {
        const double s = best_seconds(repeats, [&] { (void)c.call.apply(operand); });
        std::printf("%-34s %9.4f s %7.2f GB/s  %.2f\n", c.label.c_str(), s, bytes / s / 1e9,
                    memcpy_s / s);
    }
    return 0;
}
