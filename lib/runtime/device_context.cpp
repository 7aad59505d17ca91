#include "runtime/device_context.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

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

// The ranks of `comm` on this rank's node (free with MPI_Comm_free).
MPI_Comm node_of(MPI_Comm comm) {
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    return node;
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

// How many ranks of `node` use the same GPU as this one (collective over `node`). GPUs are told
// apart by PCI bus id, not by index: with CUDA_VISIBLE_DEVICES set per rank every rank sees its
// own GPU as index 0. A rank whose GPU failed to open (empty id) counts for nobody.
int ranks_sharing_gpu(const std::string& bus_id, MPI_Comm node) {
    using Id = std::array<char, 64>;
    Id mine{};
    bus_id.copy(mine.data(), mine.size() - 1);
    int ranks = 0;
    MPI_Comm_size(node, &ranks);
    std::vector<Id> all(static_cast<std::size_t>(ranks));
    MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(),
                  static_cast<int>(mine.size()), MPI_CHAR, node);
    if (bus_id.empty()) return 1;
    return static_cast<int>(std::count(all.begin(), all.end(), mine));
}

}  // namespace

Device parse_device(const std::string& name) {
    if (name == "cpu") return Device::Cpu;
    if (name == "gpu") return Device::Gpu;
    throw Error("--device: expected cpu or gpu, got '" + name + "'");
}

std::int64_t gpu_memory_budget(std::int64_t free_bytes, std::int64_t total_bytes,
                               int ranks_sharing) {
    const std::int64_t ranks = std::max(ranks_sharing, 1);
    const std::int64_t shared = free_bytes - total_bytes * kGpuHeadroomPercent / 100;
    return std::max<std::int64_t>(shared / ranks - kGpuRankHeadroomBytes, 1);
}

DeviceContext open_device(Device device, MPI_Comm comm) {
    DeviceContext ctx;
    ctx.device = device;
    if (device == Device::Cpu) return ctx;
    // Every rank takes part in the collectives below even when its own GPU fails, so the error
    // is thrown after them.
    MPI_Comm node = node_of(comm);
    int local = 0;
    MPI_Comm_rank(node, &local);
    std::optional<Error> error;
    kernels::GpuInfo info;
    try {
        info = kernels::use_gpu(requested_gpu(local, kernels::gpu_count()));
    } catch (const Error& e) {
        error = e;
    }
    // Measured again once every rank of the node holds its GPU, so the free memory of a shared
    // GPU already leaves out the other ranks' contexts.
    MPI_Barrier(node);
    try {
        if (!error) info = kernels::current_gpu();
    } catch (const Error& e) {
        error = e;
    }
    const std::string id = error                 ? std::string()
                           : info.bus_id.empty() ? "gpu " + std::to_string(info.index)
                                                 : info.bus_id;
    const int sharing = ranks_sharing_gpu(id, node);
    MPI_Comm_free(&node);
    const auto free_now = static_cast<std::int64_t>(info.free_bytes);
    const auto total = static_cast<std::int64_t>(info.total_bytes);
    long long mine[2] = {error ? 0 : free_now,
                         error ? 0 : gpu_memory_budget(free_now, total, sharing)};
    long long least[2] = {0, 0};
    MPI_Allreduce(mine, least, 2, MPI_LONG_LONG, MPI_MIN, comm);
    int most_sharing = 0;
    MPI_Allreduce(&sharing, &most_sharing, 1, MPI_INT, MPI_MAX, comm);
    if (error) throw *error;
    ctx.gpu = info.index;
    ctx.gpu_name = info.name;
    ctx.free_bytes = least[0];
    ctx.memory_budget = least[1];
    ctx.ranks_per_gpu = most_sharing;
    ctx.cuda_aware_mpi = mpi_reads_device_memory();
    ctx.message_pool = std::make_shared<MessagePool>();
    return ctx;
}

std::string DeviceContext::str() const {
    if (device == Device::Cpu) return "cpu";
    const auto gib = [](std::int64_t bytes) {
        char text[32];
        std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1 << 30));
        return std::string(text);
    };
    return "gpu " + std::to_string(gpu) + " (" + gpu_name + "), " + gib(free_bytes) +
           " free on the fullest rank, " + std::to_string(ranks_per_gpu) + " rank" +
           (ranks_per_gpu == 1 ? "" : "s") + " per GPU, " + gib(memory_budget) +
           " budget per rank; MPI " +
           (cuda_aware_mpi ? "moves device memory directly (CUDA-aware)"
                           : "stages through pinned host memory");
}

}  // namespace tra::runtime
