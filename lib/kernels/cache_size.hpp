#pragma once
// The host's last-level cache, for measurements that must not fit in it (kernel_calibration.hpp):
// a working set fixed in bytes streams from memory on one machine and from cache on a server
// whose last-level cache is larger, and its figure then prices a run several times too cheap.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

namespace tra::kernels {

// Bytes of last-level cache on the whole host: the size of CPU 0's highest-level data or unified
// cache, times the number of such caches (the CPUs `cpus` divided by the CPUs sharing CPU 0's).
// Read from `cache_dir` (Linux sysfs: index*/level, type, size, shared_cpu_map); 0 when it lists
// no cache.
std::int64_t host_last_level_cache_bytes(
    unsigned cpus, const std::filesystem::path& cache_dir = "/sys/devices/system/cpu/cpu0/cache");

// A sysfs cache size, "32768K", "1M" or "512": bytes, or nullopt when malformed.
std::optional<std::int64_t> parse_cache_size(std::string_view text);

// CPUs set in a sysfs CPU mask ("ffff", "00000000,0000ffff"), or nullopt when malformed.
std::optional<unsigned> cpus_in_mask(std::string_view mask);

}  // namespace tra::kernels
