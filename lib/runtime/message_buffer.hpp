#pragma once
// The bytes of one exchange message. CPU runs use plain host memory; GPU runs use pinned host
// memory, so device tiles are copied in and out at full bus speed, or device memory when the MPI
// library reads it (CUDA-aware MPI), so tiles never leave the GPU. docs/gpu.md, "Staging".
// A buffer owns its memory, or is a view of the front of one that a MessagePool keeps for a run.
#include <cstddef>

#include "core/device_memory.hpp"

namespace tra::runtime {

class MessageBuffer {
  public:
    enum class Kind { Host, Pinned, Device };

    MessageBuffer() = default;
    // A buffer of its own; device buffers come from DeviceMemory::allocate_message, unfilled.
    MessageBuffer(std::size_t bytes, Kind kind);
    // The first `bytes` bytes of `storage` (at most its size), which keeps the memory and must
    // outlive the view.
    static MessageBuffer view(MessageBuffer& storage, std::size_t bytes);
    MessageBuffer(MessageBuffer&& other) noexcept;
    MessageBuffer& operator=(MessageBuffer&& other) noexcept;
    MessageBuffer(const MessageBuffer&) = delete;
    MessageBuffer& operator=(const MessageBuffer&) = delete;
    ~MessageBuffer();

    // What MPI sends from or receives into.
    void* data() { return bytes_; }
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    Kind kind() const { return kind_; }

    // Copies n bytes between [at, at + n) of the message and memory in `where`.
    void write(std::size_t at, const void* src, std::size_t n, Residence where);
    void read(std::size_t at, void* dst, std::size_t n, Residence where) const;

  private:
    void release() noexcept;
    bool both_on_host(Residence other) const {
        return kind_ != Kind::Device && other == Residence::Host;
    }

    char* bytes_ = nullptr;
    std::size_t size_ = 0;
    Kind kind_ = Kind::Host;
    bool owner_ = true;  // false for a view
};

}  // namespace tra::runtime
