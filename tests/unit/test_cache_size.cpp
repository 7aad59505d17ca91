// The last-level cache read from sysfs (kernels/cache_size.hpp) and the calibration working sets
// grown beyond it (KernelCalibrationSettings::beyond_cache), on hand-made sysfs folders.
#include <catch2/catch.hpp>
#include <string>

#include "kernels/cache_size.hpp"
#include "kernels/kernel_calibration.hpp"
#include "temp_dir.hpp"

using namespace tra;

TEST_CASE("cache size: sysfs sizes and CPU masks", "[calibration]") {
    CHECK(kernels::parse_cache_size("32768K") == std::int64_t{32} << 20);
    CHECK(kernels::parse_cache_size("1M") == std::int64_t{1} << 20);
    CHECK(kernels::parse_cache_size("2G") == std::int64_t{2} << 30);
    CHECK(kernels::parse_cache_size("512") == 512);
    CHECK_FALSE(kernels::parse_cache_size(""));
    CHECK_FALSE(kernels::parse_cache_size("K"));
    CHECK_FALSE(kernels::parse_cache_size("12 K"));
    CHECK_FALSE(kernels::parse_cache_size("99999999999999999999K"));
    CHECK(kernels::cpus_in_mask("3") == 2u);
    CHECK(kernels::cpus_in_mask("ffff") == 16u);
    CHECK(kernels::cpus_in_mask("00000000,0000ffff") == 16u);
    CHECK(kernels::cpus_in_mask("F0") == 4u);
    CHECK_FALSE(kernels::cpus_in_mask(""));
    CHECK_FALSE(kernels::cpus_in_mask("0-15"));
}

namespace {

void cache(const testing::TempDir& dir, int index, const std::string& level,
           const std::string& type, const std::string& size, const std::string& map) {
    const std::string at = "index" + std::to_string(index) + "/";
    dir.write(at + "level", level + "\n");
    dir.write(at + "type", type + "\n");
    dir.write(at + "size", size + "\n");
    dir.write(at + "shared_cpu_map", map + "\n");
}

}  // namespace

TEST_CASE("cache size: the host's last-level cache from sysfs", "[calibration]") {
    testing::TempDir dir("cache-size");
    // No caches listed (or no folder): unknown.
    CHECK(kernels::host_last_level_cache_bytes(16, dir.path()) == 0);
    CHECK(kernels::host_last_level_cache_bytes(16, dir.path("missing")) == 0);

    cache(dir, 0, "1", "Data", "48K", "00000001");
    cache(dir, 1, "1", "Instruction", "32K", "00000001");
    cache(dir, 2, "2", "Unified", "2048K", "00000001");
    CHECK(kernels::host_last_level_cache_bytes(16, dir.path()) == 16 * (std::int64_t{2} << 20));
    // One L3 shared by 8 of 16 CPUs: two sockets' worth.
    cache(dir, 3, "3", "Unified", "107520K", "000000ff");
    CHECK(kernels::host_last_level_cache_bytes(16, dir.path()) == 2 * 107520 * std::int64_t{1024});
    CHECK(kernels::host_last_level_cache_bytes(8, dir.path()) == 107520 * std::int64_t{1024});
    // A map that cannot be read counts one cache for the host.
    dir.write("index3/shared_cpu_map", "0-7\n");
    CHECK(kernels::host_last_level_cache_bytes(16, dir.path()) == 107520 * std::int64_t{1024});
}

TEST_CASE("calibration settings: working sets beyond the last-level cache", "[calibration]") {
    const kernels::KernelCalibrationSettings full = kernels::KernelCalibrationSettings::full();
    const std::int64_t mib = std::int64_t{1} << 20;
    // A desktop's cache: the fixed sets already stream twice it.
    const kernels::KernelCalibrationSettings small = full.beyond_cache(32 * mib, 1);
    CHECK(small.thin_operand_bytes == full.thin_operand_bytes);
    CHECK(small.stream_extent == full.stream_extent);
    CHECK(full.beyond_cache(0, 1).thin_operand_bytes == full.thin_operand_bytes);
    // 105 MiB shared by one rank: 210 MiB of thin operands, three add tiles of at least 70 MiB.
    const kernels::KernelCalibrationSettings one = full.beyond_cache(105 * mib, 1);
    CHECK(one.thin_operand_bytes == 210 * mib);
    CHECK(3 * one.stream_extent * one.stream_extent * 8 >= 210 * mib);
    CHECK(3 * (one.stream_extent - 1) * (one.stream_extent - 1) * 8 < 210 * mib);
    // Shared by two ranks, each streams half; by sixteen, the fixed sets are enough.
    CHECK(full.beyond_cache(105 * mib, 2).thin_operand_bytes == 105 * mib);
    CHECK(full.beyond_cache(105 * mib, 16).thin_operand_bytes == full.thin_operand_bytes);
    // Bounded per rank whatever the cache claims.
    CHECK(full.beyond_cache(std::int64_t{1} << 40, 1).thin_operand_bytes ==
          kernels::kMaxStreamedBytes);
    // Everything else is kept.
    CHECK(one.gemm_sizes == full.gemm_sizes);
    CHECK(one.min_seconds == full.min_seconds);
    CHECK(one.thin_long == full.thin_long);
}
