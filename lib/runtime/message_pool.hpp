#pragma once
// The exchange message buffers of a GPU run, kept from one exchange to the next (docs/gpu.md,
// "Staging"): one grow-only buffer per peer, direction and kind. Pinned and device memory are
// slow to allocate and free (cudaFreeHost and cudaFree wait for the whole device), and an MPI
// library that reads device memory registers every buffer it is handed, so a run allocates each
// buffer a few times, not once per message per exchange. Everything is released when the pool is
// (the end of the run, DeviceContext), before the DeviceMemory that made it is replaced.
#include <cstddef>
#include <map>
#include <tuple>

#include "runtime/message_buffer.hpp"

namespace tra::runtime {

class MessagePool {
  public:
    enum class Direction { Send, Receive };

    MessagePool() = default;
    MessagePool(const MessagePool&) = delete;
    MessagePool& operator=(const MessagePool&) = delete;

    // A view of `bytes` bytes of the buffer kept for messages of `kind` to or from `peer`, grown
    // first when smaller. Valid until the next lease for the same peer, direction and kind, or
    // until release(): one exchange holds one message per peer and direction.
    MessageBuffer lease(int peer, Direction direction, MessageBuffer::Kind kind, std::size_t bytes);

    std::size_t held_bytes() const;  // what every kept buffer holds together
    std::size_t buffers() const { return kept_.size(); }
    void release() noexcept { kept_.clear(); }

  private:
    std::map<std::tuple<int, Direction, MessageBuffer::Kind>, MessageBuffer> kept_;
};

}  // namespace tra::runtime
