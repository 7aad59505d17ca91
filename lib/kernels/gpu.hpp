#pragma once
// The GPU as the rest of tra sees it: whether this build has the CUDA backend, which GPUs are
// visible, and selecting one for this process (which installs its DeviceMemory, so tiles can
// live there). No CUDA type crosses this header.
#include <cstddef>
#include <string>

namespace tra::kernels {

struct GpuInfo {
    int index = 0;  // the CUDA device ordinal
    std::string name;
    // The PCI bus id ("0000:3b:00.0"): the same GPU has the same one in every process, whatever
    // CUDA_VISIBLE_DEVICES numbers it there, so ranks can tell when they share a GPU.
    std::string bus_id;
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
};

// True when tra was built with -DTRA_CUDA=ON.
bool gpu_backend_built();
// GPUs this process sees; 0 in a CPU-only build or when the driver finds none.
int gpu_count();
// Makes GPU `index` this process's device and installs its memory for tiles. Throws Error
// (BadInput) in a CPU-only build or when no such GPU is visible.
GpuInfo use_gpu(int index);
// The selected GPU's memory now; throws Error (Failed) when none was selected.
GpuInfo current_gpu();
// Waits until everything queued on the selected GPU has finished: copies into device memory and
// the zero fill of a fresh allocation may still run when the call that started them returns.
// Does nothing when no GPU was selected (CPU runs, CPU-only builds).
void synchronize_gpu();

}  // namespace tra::kernels
