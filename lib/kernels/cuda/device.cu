// Selecting a GPU and the DeviceMemory tiles use on it. Allocations go through CUDA's
// stream-ordered pool on the default stream: operators allocate and free a tile per output, and
// the pool turns that into reuse instead of a cudaMalloc/cudaFree round trip each time.
#include <cstdint>
#include <limits>
#include <string>

#include "core/device_memory.hpp"
#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/cuda_check.cuh"

namespace tra::kernels::cuda {

namespace {

class CudaDeviceMemory final : public DeviceMemory {
  public:
    void* allocate(std::size_t bytes) override {
        void* p = nullptr;
        // Never a zero-byte request: every tile gets a distinct, freeable address.
        const std::size_t n = bytes ? bytes : 1;
        cudaError_t status = cudaMallocAsync(&p, n, cudaStreamLegacy);
        if (status == cudaErrorMemoryAllocation) {
            cudaGetLastError();  // clear it, so later calls do not report it again
            throw Error("GPU out of memory allocating a tile of " + std::to_string(bytes) +
                            " bytes; plan with less memory per site or more ranks",
                        {}, ErrorKind::Failed);
        }
        check(status, "cudaMallocAsync");
        check(cudaMemsetAsync(p, 0, n, cudaStreamLegacy), "cudaMemsetAsync");
        return p;
    }
    void release(void* p) noexcept override {
        // A failure here means the context is already gone (process exit): nothing to free.
        if (p) cudaFreeAsync(p, cudaStreamLegacy);
    }
    void* allocate_pinned(std::size_t bytes) override {
        void* p = nullptr;
        check(cudaMallocHost(&p, bytes ? bytes : 1), "cudaMallocHost");
        return p;
    }
    void release_pinned(void* p) noexcept override {
        if (p) cudaFreeHost(p);
    }
    void copy(void* dst, const void* src, std::size_t bytes) override {
        if (bytes) check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
    }
    void copy_rows(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                   std::size_t row_bytes, std::size_t rows) override {
        if (row_bytes && rows)
            check(cudaMemcpy2D(dst, dst_pitch, src, src_pitch, row_bytes, rows, cudaMemcpyDefault),
                  "cudaMemcpy2D");
    }
};

// Deliberately never destroyed: tiles held in static storage may be freed during exit.
CudaDeviceMemory& memory() {
    static auto* m = new CudaDeviceMemory;
    return *m;
}

int selected = -1;

GpuInfo describe(int index) {
    GpuInfo info;
    info.index = index;
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties");
    info.name = prop.name;
    check(cudaMemGetInfo(&info.free_bytes, &info.total_bytes), "cudaMemGetInfo");
    return info;
}

}  // namespace

int device_count() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();  // no driver or no device: that just means none are visible
        return 0;
    }
    return n;
}

GpuInfo use_device(int index) {
    const int n = device_count();
    if (n == 0) throw Error("--device gpu: no GPU is visible to this process");
    if (index < 0 || index >= n)
        throw Error("--device gpu: GPU " + std::to_string(index) + " does not exist; this " +
                    "process sees " + std::to_string(n) + " (set TRA_GPU to 0.." +
                    std::to_string(n - 1) + ")");
    check(cudaSetDevice(index), "cudaSetDevice");
    // Keep freed tiles in the pool instead of returning them to the driver at each sync.
    cudaMemPool_t pool;
    check(cudaDeviceGetDefaultMemPool(&pool, index), "cudaDeviceGetDefaultMemPool");
    std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
    check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep),
          "cudaMemPoolSetAttribute");
    selected = index;
    install_device_memory(&memory());
    return describe(index);
}

GpuInfo current_device() {
    if (selected < 0) throw Error("no GPU was selected", {}, ErrorKind::Failed);
    return describe(selected);
}

void synchronize_device() {
    if (selected >= 0) check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

cublasHandle_t blas_handle() {
    static cublasHandle_t handle = nullptr;
    if (!handle) check(cublasCreate(&handle), "cublasCreate");
    return handle;
}

}  // namespace tra::kernels::cuda
