#pragma once
// Where a tile's buffer lives, and the allocator/copier for accelerator memory. lib/core never
// includes a GPU runtime: the GPU backend (lib/kernels/cuda) installs its DeviceMemory when a
// run selects a GPU, and Tile uses it for buffers that live there.
#include <cstddef>

namespace tra {

enum class Residence { Host, Device };

class DeviceMemory {
  public:
    virtual ~DeviceMemory() = default;
    // A zero-filled tile buffer (allocate(bytes, true)).
    void* allocate(std::size_t bytes) { return allocate(bytes, true); }
    // A tile buffer, zero-filled only when `zero`: a buffer whose every byte is written before it
    // is read (Tile::uninitialized) need not pay for a fill. Throws Error (Failed) when the
    // device is out of memory.
    virtual void* allocate(std::size_t bytes, bool zero) = 0;
    virtual void release(void* p) noexcept = 0;
    // An exchange message buffer in device memory, never filled and outside the allocator tiles
    // use: MPI libraries that read device memory register its buffers, which a stream-ordered
    // pool's address reuse confuses. Exchanges keep them for a run (runtime/message_pool.hpp).
    // Throws Error (Failed) when the device is out of memory.
    virtual void* allocate_message(std::size_t bytes) = 0;
    virtual void release_message(void* p) noexcept = 0;
    // Page-locked host buffer, so copies to and from the device run at full bus speed.
    virtual void* allocate_pinned(std::size_t bytes) = 0;
    virtual void release_pinned(void* p) noexcept = 0;
    // Copies between any two buffers, host or device (the GPU's unified addressing tells which).
    // A copy into device memory, and a fill, may still run when the call returns.
    virtual void copy(void* dst, const void* src, std::size_t bytes) = 0;
    // Copies `rows` rows of `row_bytes` each between buffers with the given row pitches.
    virtual void copy_rows(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                           std::size_t row_bytes, std::size_t rows) = 0;
    // Waits until every copy, fill and kernel started so far has finished: whatever hands device
    // or pinned memory to a reader outside the device's queue (MPI) waits here first.
    virtual void synchronize() = 0;
};

// Installs the device allocator (nullptr uninstalls). Tiles on the device must be gone before
// the allocator that made them is replaced.
void install_device_memory(DeviceMemory* memory);
// The installed allocator; throws Error (Failed) when no device was selected.
DeviceMemory& device_memory();
bool device_memory_installed();

}  // namespace tra
