#pragma once
// Which device a rank computes on (tra run --device cpu|gpu) and what that implies for the
// executor: where tiles live between operators, and where exchange messages are assembled.
// Each rank takes the GPU of its local rank on its node (local rank modulo the GPUs it sees);
// TRA_GPU=N makes every rank use GPU N instead. MPI moves device tiles directly when the MPI
// library is CUDA-aware (MPIX_Query_cuda_support) and otherwise stages them through pinned
// host memory; TRA_GPU_STAGING=1 forces staging. docs/gpu.md.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>

#include "core/device_memory.hpp"
#include "runtime/message_buffer.hpp"
#include "runtime/message_pool.hpp"
#include "runtime/protocol_message.hpp"

namespace tra::runtime {

enum class Device { Cpu, Gpu };

struct DeviceContext {
    Device device = Device::Cpu;
    int gpu = -1;  // CUDA ordinal on GPU runs
    std::string gpu_name;
    // The smallest free device memory over all ranks when the device was opened: what one site
    // may hold on GPU runs (0 on CPU runs).
    std::int64_t free_bytes = 0;
    // The most ranks that share one GPU (GPU runs), and the GPU memory each rank may plan for:
    // the smallest gpu_memory_budget over all ranks (0 on CPU runs).
    int ranks_per_gpu = 0;
    std::int64_t memory_budget = 0;
    bool cuda_aware_mpi = false;
    // The exchange message buffers of the run (GPU runs), shared by copies of the context and
    // released with the last of them, at the end of the run.
    std::shared_ptr<MessagePool> message_pool;

    // Where operator outputs live.
    Residence tiles() const { return device == Device::Gpu ? Residence::Device : Residence::Host; }
    // Where exchange messages are packed: on the GPU only when MPI can read device memory,
    // else pinned host memory on GPU runs.
    MessageBuffer::Kind messages() const {
        if (device == Device::Cpu) return MessageBuffer::Kind::Host;
        return cuda_aware_mpi ? MessageBuffer::Kind::Device : MessageBuffer::Kind::Pinned;
    }
    // Where the executor's exchanges put tiles and messages, with the run's message pool.
    ExchangeMemory exchange_memory() const { return {tiles(), messages(), message_pool.get()}; }
    // "cpu", or "gpu 0 (NVIDIA H100 80GB HBM3), 79.1 GiB free on the fullest rank, 2 ranks per
    // GPU, 35.1 GiB budget per rank; MPI stages through pinned host memory".
    std::string str() const;
};

// What a rank may plan to hold on a GPU that has `free_bytes` free of `total_bytes`, shared by
// `ranks_sharing` ranks (at least 1): the free memory less kGpuHeadroomPercent of the total
// (fragmentation, lazily loaded kernels) and, per rank, kGpuRankHeadroomBytes (its cuBLAS
// workspace and allocator slack), split evenly. Never below 1 byte: a budget of 0 reads as "no
// limit" to the planner, and a GPU without room must refuse every plan instead.
inline constexpr std::int64_t kGpuHeadroomPercent = 5;
inline constexpr std::int64_t kGpuRankHeadroomBytes = std::int64_t{512} << 20;
std::int64_t gpu_memory_budget(std::int64_t free_bytes, std::int64_t total_bytes,
                               int ranks_sharing);

// "cpu" or "gpu"; throws Error (BadInput) naming --device otherwise.
Device parse_device(const std::string& name);

// Opens `device` on every rank of `comm` (collective). Throws Error (BadInput) for a GPU run in
// a CPU-only build, when no GPU is visible, or when TRA_GPU names one that does not exist.
DeviceContext open_device(Device device, MPI_Comm comm);

}  // namespace tra::runtime
