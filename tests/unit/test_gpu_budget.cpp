// The GPU memory a rank plans for (runtime::gpu_memory_budget): free memory less headroom, split
// among the ranks that share the GPU; and the run's `device:` line that reports it. Plain
// arithmetic, no MPI or GPU.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

#include "runtime/device_context.hpp"

using namespace tra;
using runtime::gpu_memory_budget;

namespace {
constexpr std::int64_t kMiB = std::int64_t{1} << 20, kGiB = std::int64_t{1} << 30;
}

TEST_CASE("one rank gets the free memory less 5% of the total and 512 MiB", "[device]") {
    // An 80 GiB GPU with 79 GiB free: 79 GiB - 4 GiB - 512 MiB.
    CHECK(gpu_memory_budget(79 * kGiB, 80 * kGiB, 1) == 75 * kGiB - 512 * kMiB);
    CHECK(gpu_memory_budget(10 * kGiB, 0, 1) == 10 * kGiB - 512 * kMiB);
}

TEST_CASE("ranks sharing a GPU split what is left, each keeping its own headroom", "[device]") {
    const std::int64_t alone = gpu_memory_budget(79 * kGiB, 80 * kGiB, 1);
    const std::int64_t shared = 75 * kGiB;  // free less 5% of the total
    CHECK(gpu_memory_budget(79 * kGiB, 80 * kGiB, 2) == shared / 2 - 512 * kMiB);
    CHECK(gpu_memory_budget(79 * kGiB, 80 * kGiB, 8) == shared / 8 - 512 * kMiB);
    CHECK(2 * gpu_memory_budget(79 * kGiB, 80 * kGiB, 2) < alone);
    CHECK(gpu_memory_budget(79 * kGiB, 80 * kGiB, 0) == alone);  // no count reads as one rank
}

TEST_CASE("a GPU without room beyond the headroom leaves 1 byte, never 'no limit'", "[device]") {
    CHECK(gpu_memory_budget(0, 80 * kGiB, 1) == 1);
    CHECK(gpu_memory_budget(4 * kGiB, 80 * kGiB, 1) == 1);
    CHECK(gpu_memory_budget(4 * kGiB + 512 * kMiB, 80 * kGiB, 1) == 1);
    CHECK(gpu_memory_budget(4 * kGiB + 512 * kMiB + 2, 80 * kGiB, 1) == 2);
}

TEST_CASE("the device line keeps its words and adds ranks per GPU and the budget", "[device]") {
    runtime::DeviceContext cpu;
    CHECK(cpu.str() == "cpu");
    runtime::DeviceContext gpu;
    gpu.device = runtime::Device::Gpu;
    gpu.gpu = 0;
    gpu.gpu_name = "NVIDIA H100 80GB HBM3";
    gpu.free_bytes = 79 * kGiB;
    gpu.ranks_per_gpu = 2;
    gpu.memory_budget = gpu_memory_budget(79 * kGiB, 80 * kGiB, 2);
    CHECK(gpu.str() ==
          "gpu 0 (NVIDIA H100 80GB HBM3), 79.0 GiB free on the fullest rank, 2 ranks per GPU, "
          "37.0 GiB budget per rank; MPI stages through pinned host memory");
    gpu.ranks_per_gpu = 1;
    gpu.cuda_aware_mpi = true;
    CHECK_THAT(gpu.str(), Catch::Contains("1 rank per GPU") &&
                              Catch::EndsWith("MPI moves device memory directly (CUDA-aware)"));
}

TEST_CASE("a GPU run's exchanges use its message pool", "[device]") {
    runtime::DeviceContext gpu;
    gpu.device = runtime::Device::Gpu;
    gpu.message_pool = std::make_shared<runtime::MessagePool>();
    const runtime::ExchangeMemory memory = gpu.exchange_memory();
    CHECK(memory.pool == gpu.message_pool.get());
    CHECK(memory.tiles == Residence::Device);
    CHECK(memory.messages == runtime::MessageBuffer::Kind::Pinned);
    CHECK(runtime::DeviceContext().exchange_memory().pool == nullptr);
}
