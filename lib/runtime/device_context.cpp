#include "runtime/device_context.hpp"

#include <cstdio>
#include <cstdlib>
#include <optional>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // OpenMPI's extensions: MPIX_Query_cuda_support
#endif

#include "core/error.hpp"
#include "kernels/gpu.hpp"

namespace tra::runtime {

namespace {

// Whether the MPI library, as built and as configured now, reads and writes device memory.
bool mpi_reads_device_memory() {
    if (const char* v = std::getenv("TRA_GPU_STAGING"); v && std::string(v) == "1") return false;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
}

// This rank's index among the ranks on its node.
int local_rank(MPI_Comm comm) {
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int rank = 0;
    MPI_Comm_rank(node, &rank);
    MPI_Comm_free(&node);
    return rank;
}

int requested_gpu(int local, int visible) {
    const char* v = std::getenv("TRA_GPU");
    if (!v || !*v) return visible > 0 ? local % visible : 0;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (*end || n < 0)
        throw Error("TRA_GPU must be a GPU number (0, 1, ...), got '" + std::string(v) + "'");
    return static_cast<int>(n);
}

}  // namespace

Device parse_device(const std::string& name) {
    if (name == "cpu") return Device::Cpu;
    if (name == "gpu") return Device::Gpu;
    throw Error("--device: expected cpu or gpu, got '" + name + "'");
}

DeviceContext open_device(Device device, MPI_Comm comm) {
    DeviceContext ctx;
    ctx.device = device;
    if (device == Device::Cpu) return ctx;
    // Every rank takes part in the collectives below even when its own GPU fails, so the error
    // is thrown after them.
    const int local = local_rank(comm);
    std::optional<Error> error;
    kernels::GpuInfo info;
    try {
        info = kernels::use_gpu(requested_gpu(local, kernels::gpu_count()));
    } catch (const Error& e) {
        error = e;
    }
    long long free_bytes = error ? 0 : static_cast<long long>(info.free_bytes), least = 0;
    MPI_Allreduce(&free_bytes, &least, 1, MPI_LONG_LONG, MPI_MIN, comm);
    if (error) throw *error;
    ctx.gpu = info.index;
    ctx.gpu_name = info.name;
    ctx.free_bytes = least;
    ctx.cuda_aware_mpi = mpi_reads_device_memory();
    return ctx;
}

std::string DeviceContext::str() const {
    if (device == Device::Cpu) return "cpu";
    char free[32];
    std::snprintf(free, sizeof free, "%.1f GiB", static_cast<double>(free_bytes) / (1 << 30));
    return "gpu " + std::to_string(gpu) + " (" + gpu_name + "), " + free +
           " free on the fullest rank; MPI " +
           (cuda_aware_mpi ? "moves device memory directly (CUDA-aware)"
                           : "stages through pinned host memory");
}

}  // namespace tra::runtime
