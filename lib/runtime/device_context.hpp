#pragma once
// Which device a rank computes on (tra run --device cpu|gpu) and what that implies for the
// executor: where tiles live between operators, and where exchange messages are assembled.
// Each rank takes the GPU of its local rank on its node (local rank modulo the GPUs it sees);
// TRA_GPU=N makes every rank use GPU N instead. MPI moves device tiles directly when the MPI
// library is CUDA-aware (MPIX_Query_cuda_support) and otherwise stages them through pinned
// host memory; TRA_GPU_STAGING=1 forces staging. docs/gpu.md.
#include <mpi.h>

#include <cstdint>
#include <string>

#include "core/device_memory.hpp"
#include "runtime/message_buffer.hpp"

namespace tra::runtime {

enum class Device { Cpu, Gpu };

struct DeviceContext {
    Device device = Device::Cpu;
    int gpu = -1;  // CUDA ordinal on GPU runs
    std::string gpu_name;
    // The smallest free device memory over all ranks when the device was opened: what one site
    // may hold on GPU runs (0 on CPU runs).
    std::int64_t free_bytes = 0;
    bool cuda_aware_mpi = false;

    // Where operator outputs live.
    Residence tiles() const { return device == Device::Gpu ? Residence::Device : Residence::Host; }
    // Where exchange messages are packed: on the GPU only when MPI can read device memory,
    // else pinned host memory on GPU runs.
    MessageBuffer::Kind messages() const {
        if (device == Device::Cpu) return MessageBuffer::Kind::Host;
        return cuda_aware_mpi ? MessageBuffer::Kind::Device : MessageBuffer::Kind::Pinned;
    }
    // "cpu", or "gpu 0 (NVIDIA H100 80GB HBM3), 79.1 GiB free; MPI stages through pinned host
    // memory".
    std::string str() const;
};

// "cpu" or "gpu"; throws Error (BadInput) naming --device otherwise.
Device parse_device(const std::string& name);

// Opens `device` on every rank of `comm` (collective). Throws Error (BadInput) for a GPU run in
// a CPU-only build, when no GPU is visible, or when TRA_GPU names one that does not exist.
DeviceContext open_device(Device device, MPI_Comm comm);

}  // namespace tra::runtime
