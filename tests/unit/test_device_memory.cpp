// Device tile allocations with a host-backed stand-in for device memory: zero-filled tiles are
// filled by the allocator, uninitialized ones (every byte written before read) are not, and a
// copy to the device fills nothing since it writes every byte.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "core/device_memory.hpp"
#include "core/tile.hpp"
#include "host_device_fixtures.hpp"

using namespace tra;

namespace {
// Whether every byte of the device tile `t` (host-backed here) is `byte`.
bool all_bytes(const Tile& t, unsigned char byte) {
    const auto* p = static_cast<const unsigned char*>(t.address());
    for (std::size_t i = 0; i < t.bytes(); ++i)
        if (p[i] != byte) return false;
    return true;
}
}  // namespace

TEST_CASE("device tiles are zero-filled unless made uninitialized", "[device]") {
    testing::InstalledHostDevice gpu;
    using Events = std::vector<std::string>;
    const Tile zeros(DType::F64, Shape{3, 5}, Residence::Device);
    CHECK(gpu.memory.events == Events{"allocate_zeroed"});
    CHECK(all_bytes(zeros, 0));
    gpu.memory.events.clear();
    const Tile raw = Tile::uninitialized(DType::F64, Shape{3, 5}, Residence::Device);
    CHECK(gpu.memory.events == Events{"allocate"});
    CHECK(all_bytes(raw, testing::HostBackedDeviceMemory::kUnfilled));
    gpu.memory.events.clear();
    Tile host(DType::F32, Shape{4});
    for (std::int64_t i = 0; i < 4; ++i) host.set(i, static_cast<double>(i) + 0.5);
    const Tile moved = host.to(Residence::Device);
    CHECK(gpu.memory.events == Events{"allocate", "copy"});  // the copy writes every byte
    const Tile back = moved.to(Residence::Host);
    for (std::int64_t i = 0; i < 4; ++i) CHECK(back.get(i) == static_cast<double>(i) + 0.5);
}

TEST_CASE("allocate(bytes) is the zero-filled allocation", "[device]") {
    testing::InstalledHostDevice gpu;
    DeviceMemory& memory = device_memory();
    void* p = memory.allocate(24);
    CHECK(gpu.memory.events == std::vector<std::string>{"allocate_zeroed"});
    const std::vector<unsigned char> zeros(24, 0);
    CHECK(std::memcmp(p, zeros.data(), 24) == 0);
    memory.release(p);
    CHECK(gpu.memory.live.empty());
}
