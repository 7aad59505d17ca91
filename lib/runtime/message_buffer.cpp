#include "runtime/message_buffer.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace tra::runtime {

MessageBuffer::MessageBuffer(std::size_t bytes, Kind kind) : size_(bytes), kind_(kind) {
    if (bytes == 0) return;
    void* p = nullptr;
    switch (kind) {
        case Kind::Host:
            p = std::malloc(bytes);
            break;
        case Kind::Pinned:
            p = device_memory().allocate_pinned(bytes);
            break;
        case Kind::Device:
            p = device_memory().allocate_message(bytes);
            break;
    }
    if (!p)
        throw Error(
            "out of memory allocating an exchange message of " + std::to_string(bytes) + " bytes",
            {}, ErrorKind::Failed);
    bytes_ = static_cast<char*>(p);
}

MessageBuffer MessageBuffer::view(MessageBuffer& storage, std::size_t bytes) {
    if (bytes > storage.size_)
        throw Error("exchange: a message of " + std::to_string(bytes) +
                        " bytes does not fit its buffer of " + std::to_string(storage.size_),
                    {}, ErrorKind::Failed);
    MessageBuffer v;
    v.bytes_ = storage.bytes_;
    v.size_ = bytes;
    v.kind_ = storage.kind_;
    v.owner_ = false;
    return v;
}

MessageBuffer::MessageBuffer(MessageBuffer&& other) noexcept
    : bytes_(std::exchange(other.bytes_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      kind_(other.kind_),
      owner_(other.owner_) {}

MessageBuffer& MessageBuffer::operator=(MessageBuffer&& other) noexcept {
    if (this != &other) {
        release();
        bytes_ = std::exchange(other.bytes_, nullptr);
        size_ = std::exchange(other.size_, 0);
        kind_ = other.kind_;
        owner_ = other.owner_;
    }
    return *this;
}

MessageBuffer::~MessageBuffer() {
    release();
}

void MessageBuffer::release() noexcept {
    if (!bytes_ || !owner_) return;
    switch (kind_) {
        case Kind::Host:
            std::free(bytes_);
            break;
        case Kind::Pinned:
            device_memory().release_pinned(bytes_);
            break;
        case Kind::Device:
            device_memory().release_message(bytes_);
            break;
    }
    bytes_ = nullptr;
}

void MessageBuffer::write(std::size_t at, const void* src, std::size_t n, Residence where) {
    if (n == 0) return;
    if (both_on_host(where))
        std::memcpy(bytes_ + at, src, n);
    else
        device_memory().copy(bytes_ + at, src, n);
}

void MessageBuffer::read(std::size_t at, void* dst, std::size_t n, Residence where) const {
    if (n == 0) return;
    if (both_on_host(where))
        std::memcpy(dst, bytes_ + at, n);
    else
        device_memory().copy(dst, bytes_ + at, n);
}

}  // namespace tra::runtime
