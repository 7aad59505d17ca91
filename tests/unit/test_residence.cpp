// Tiles whose buffer lives in device memory, with a host-backed DeviceMemory standing in for a
// GPU: residence is kept by copies, host accessors refuse device tiles, split/concat work on
// either side, and kernels dispatch by residence. Runs without a GPU; the real GPU kernels are
// tested against the CPU ones in tests/gpu.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <set>

#include "core/device_memory.hpp"
#include "core/error.hpp"
#include "core/tile.hpp"
#include "host_device_fixtures.hpp"
#include "kernels/gpu.hpp"
#include "kernels/kernel.hpp"
#include "kernels/registry.hpp"
#include "kernels/tile_copy.hpp"

using namespace tra;

namespace {

Tile counting(DType d, Shape shape) {
    Tile t(d, std::move(shape));
    for (std::int64_t i = 0; i < t.elements(); ++i) t.set(i, static_cast<double>(i));
    return t;
}

}  // namespace

TEST_CASE("a device tile needs a selected GPU", "[residence]") {
    REQUIRE_FALSE(device_memory_installed());
    REQUIRE_THROWS_WITH(Tile(DType::F32, Shape{2, 2}, Residence::Device),
                        Catch::Contains("no GPU was selected"));
}

TEST_CASE("tiles move between host and device and keep their values", "[residence]") {
    testing::InstalledHostDevice gpu;
    const Tile host = counting(DType::F64, Shape{3, 4});
    Tile dev = host.to(Residence::Device);
    CHECK(dev.on_device());
    CHECK(dev.residence() == Residence::Device);
    CHECK(gpu.memory.live.size() == 1);
    CHECK_THROWS_WITH(dev.data<double>(), Catch::Contains("lives on the GPU"));
    CHECK_THROWS_WITH(host.device_data<double>(), Catch::Contains("host memory"));
    const Tile copy = dev;  // a copy stays on the device
    CHECK(copy.on_device());
    CHECK(gpu.memory.live.size() == 2);
    const Tile back = copy.to(Residence::Host);
    CHECK_FALSE(back.on_device());
    for (std::int64_t i = 0; i < host.elements(); ++i) CHECK(back.get(i) == host.get(i));
    dev = Tile();
    CHECK(gpu.memory.live.size() == 1);  // the moved-over device buffer was released
}

TEST_CASE("split and concat work on device tiles as on host tiles", "[residence]") {
    testing::InstalledHostDevice gpu;
    const Tile host = counting(DType::F32, Shape{4, 6});
    const Tile dev = host.to(Residence::Device);
    for (std::size_t dim : {0u, 1u}) {
        std::vector<Tile> host_pieces, dev_pieces;
        for (std::int64_t i = 0; i < 2; ++i) {
            host_pieces.push_back(kernels::split_tile(host, dim, host.shape()[dim] / 2, i));
            dev_pieces.push_back(kernels::split_tile(dev, dim, host.shape()[dim] / 2, i));
            REQUIRE(dev_pieces.back().on_device());
            const Tile piece = dev_pieces.back().to(Residence::Host);
            for (std::int64_t e = 0; e < piece.elements(); ++e)
                CHECK(piece.get(e) == host_pieces.back().get(e));
        }
        const Tile* parts[] = {&dev_pieces[0], &dev_pieces[1]};
        const Tile joined = kernels::concat_tiles(parts, dim).to(Residence::Host);
        for (std::int64_t e = 0; e < host.elements(); ++e) CHECK(joined.get(e) == host.get(e));
    }
    const Tile mixed[] = {host, dev};
    const Tile* parts[] = {&mixed[0], &mixed[1]};
    CHECK_THROWS_WITH(kernels::concat_tiles(parts, 0),
                      Catch::Contains("some pieces live on the GPU"));
}

TEST_CASE("kernels run where their operands live", "[residence]") {
    testing::InstalledHostDevice gpu;
    const Tile a = counting(DType::F64, Shape{2, 2});
    const Tile dev = a.to(Residence::Device);
    const kernels::KernelCall add("add");
    const Tile* mixed[] = {&a, &dev};
    CHECK_THROWS_WITH(add.apply(mixed), Catch::Contains("some operands live on the GPU"));
    const Tile* on_device[] = {&dev, &dev};
    if (kernels::gpu_backend_built()) {
        // Every kernel has a GPU implementation; running it needs a real GPU (tests/gpu).
        for (const kernels::Kernel* k : kernels::all_kernels())
            CHECK_FALSE(k->apply_on_device == nullptr);
    } else {
        CHECK_THROWS_WITH(add.apply(on_device), Catch::Contains("no GPU implementation"));
        for (const kernels::Kernel* k : kernels::all_kernels())
            CHECK(k->apply_on_device == nullptr);
    }
}

TEST_CASE("a CPU-only build says how to get the GPU backend", "[residence]") {
    if (kernels::gpu_backend_built()) {
        CHECK(kernels::gpu_count() >= 0);
    } else {
        CHECK(kernels::gpu_count() == 0);
        CHECK_THROWS_WITH(kernels::use_gpu(0), Catch::Contains("-DTRA_CUDA=ON"));
    }
}
