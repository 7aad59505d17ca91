#pragma once
// A DeviceMemory that is really host memory, so device-resident tiles and the exchange's staged
// path run without a GPU; it counts what is live and the copies made, so leaks and extra copies
// show. Install it for one test with `tra::testing::InstalledHostDevice gpu;`.
#include <cstdlib>
#include <cstring>
#include <set>

#include "core/device_memory.hpp"

namespace tra::testing {

// Device memory that is really host memory, counting what is live so leaks show.
class HostBackedDeviceMemory final : public DeviceMemory {
  public:
    std::set<void*> live, pinned;
    int copies = 0;

    void* allocate(std::size_t bytes) override {
        void* p = std::calloc(1, bytes ? bytes : 1);
        live.insert(p);
        return p;
    }
    void release(void* p) noexcept override {
        live.erase(p);
        std::free(p);
    }
    void* allocate_pinned(std::size_t bytes) override {
        void* p = std::malloc(bytes ? bytes : 1);
        pinned.insert(p);
        return p;
    }
    void release_pinned(void* p) noexcept override {
        pinned.erase(p);
        std::free(p);
    }
    void copy(void* dst, const void* src, std::size_t bytes) override {
        ++copies;
        std::memcpy(dst, src, bytes);
    }
    void copy_rows(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                   std::size_t row_bytes, std::size_t rows) override {
        ++copies;
        for (std::size_t r = 0; r < rows; ++r)
            std::memcpy(static_cast<char*>(dst) + r * dst_pitch,
                        static_cast<const char*>(src) + r * src_pitch, row_bytes);
    }
};

// Installs the stand-in for one test and uninstalls it after.
struct InstalledHostDevice {
    HostBackedDeviceMemory memory;
    InstalledHostDevice() { install_device_memory(&memory); }
    ~InstalledHostDevice() { install_device_memory(nullptr); }
};

}  // namespace tra::testing
