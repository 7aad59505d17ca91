#include "runtime/message_pool.hpp"

namespace tra::runtime {

MessageBuffer MessagePool::lease(int peer, Direction direction, MessageBuffer::Kind kind,
                                 std::size_t bytes) {
    MessageBuffer& kept = kept_[{peer, direction, kind}];
    if (kept.size() < bytes) {
        kept = MessageBuffer();  // the old buffer goes first, so the two never coexist
        kept = MessageBuffer(bytes, kind);
    }
    return MessageBuffer::view(kept, bytes);
}

std::size_t MessagePool::held_bytes() const {
    std::size_t total = 0;
    for (const auto& [slot, buffer] : kept_) total += buffer.size();
    return total;
}

}  // namespace tra::runtime
