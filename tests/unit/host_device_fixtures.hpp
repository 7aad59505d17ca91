#pragma once
// A DeviceMemory that is really host memory, so device-resident tiles and the exchange's staged
// path run without a GPU; it counts what is live and the copies made, so leaks and extra copies
// show, and logs every call in order (`events`), so tests can check what happened before what
// (a synchronize after the last copy and before MPI is handed a message). Install it for one test
// with `tra::testing::InstalledHostDevice gpu;`.
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "core/device_memory.hpp"

namespace tra::testing {

// Device memory that is really host memory, counting what is live so leaks show.
class HostBackedDeviceMemory final : public DeviceMemory {
  public:
    // What a buffer that is not zero-filled holds at first, so code that relies on a fill it did
    // not ask for reads garbage here as it would on a GPU.
    static constexpr unsigned char kUnfilled = 0xA5;

    std::set<void*> live, pinned, messages;
    int copies = 0;
    // "allocate", "allocate_zeroed", "allocate_message", "allocate_pinned", "copy", "synchronize"
    // and the releases, in call order; tests may append events of their own (an MPI post).
    std::vector<std::string> events;

    using DeviceMemory::allocate;
    void* allocate(std::size_t bytes, bool zero) override {
        void* p = std::malloc(bytes ? bytes : 1);
        std::memset(p, zero ? 0 : kUnfilled, bytes ? bytes : 1);
        live.insert(p);
        events.push_back(zero ? "allocate_zeroed" : "allocate");
        return p;
    }
    void release(void* p) noexcept override {
        live.erase(p);
        std::free(p);
        events.push_back("release");
    }
    void* allocate_message(std::size_t bytes) override {
        void* p = std::malloc(bytes ? bytes : 1);
        std::memset(p, kUnfilled, bytes ? bytes : 1);
        messages.insert(p);
        events.push_back("allocate_message");
        return p;
    }
    void release_message(void* p) noexcept override {
        messages.erase(p);
        std::free(p);
        events.push_back("release_message");
    }
    void* allocate_pinned(std::size_t bytes) override {
        void* p = std::malloc(bytes ? bytes : 1);
        pinned.insert(p);
        events.push_back("allocate_pinned");
        return p;
    }
    void release_pinned(void* p) noexcept override {
        pinned.erase(p);
        std::free(p);
        events.push_back("release_pinned");
    }
    void copy(void* dst, const void* src, std::size_t bytes) override {
        ++copies;
        std::memcpy(dst, src, bytes);
        events.push_back("copy");
    }
    void copy_rows(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                   std::size_t row_bytes, std::size_t rows) override {
        ++copies;
        for (std::size_t r = 0; r < rows; ++r)
            std::memcpy(static_cast<char*>(dst) + r * dst_pitch,
                        static_cast<const char*>(src) + r * src_pitch, row_bytes);
        events.push_back("copy");
    }
    void synchronize() override { events.push_back("synchronize"); }
};

// Installs the stand-in for one test and uninstalls it after.
struct InstalledHostDevice {
    HostBackedDeviceMemory memory;
    InstalledHostDevice() { install_device_memory(&memory); }
    ~InstalledHostDevice() { install_device_memory(nullptr); }
};

}  // namespace tra::testing
