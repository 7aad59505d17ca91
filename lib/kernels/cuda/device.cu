// Selecting a GPU and the DeviceMemory tiles use on it. Tile allocations go through CUDA's
// stream-ordered pool on the default stream: operators allocate and free a tile per output, and
// the pool turns that into reuse instead of a cudaMalloc/cudaFree round trip each time. Exchange
// message buffers are plain cudaMalloc memory (DeviceMemory::allocate_message says why).
#include <cstdint>
#include <limits>
#include <map>
#include <string>

#include "core/device_memory.hpp"
#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/cuda_check.cuh"

namespace tra::kernels::cuda {

namespace {

// Out of memory is the run's plan not fitting, not a CUDA fault: say so, and clear the error so
// later calls do not report it again.
[[noreturn]] void out_of_memory(const char* what, std::size_t bytes) {
    cudaGetLastError();
    throw Error("GPU out of memory allocating " + std::string(what) + " of " +
                    std::to_string(bytes) + " bytes; plan with less memory per site or more ranks",
                {}, ErrorKind::Failed);
}

class CudaDeviceMemory final : public DeviceMemory {
  public:
    using DeviceMemory::allocate;
    void* allocate(std::size_t bytes, bool zero) override {
        void* p = nullptr;
        // Never a zero-byte request: every tile gets a distinct, freeable address.
        const std::size_t n = bytes ? bytes : 1;
        const cudaError_t status = cudaMallocAsync(&p, n, cudaStreamLegacy);
        if (status == cudaErrorMemoryAllocation) out_of_memory("a tile", bytes);
        check(status, "cudaMallocAsync");
        if (zero) {
            const cudaError_t filled = cudaMemsetAsync(p, 0, n, cudaStreamLegacy);
            if (filled != cudaSuccess) cudaFreeAsync(p, cudaStreamLegacy);  // not leaked
            check(filled, "cudaMemsetAsync");
        }
        return p;
    }
    void release(void* p) noexcept override {
        // A failure here means the context is already gone (process exit): nothing to free.
        if (p) cudaFreeAsync(p, cudaStreamLegacy);
    }
    void* allocate_message(std::size_t bytes) override {
        void* p = nullptr;
        const cudaError_t status = cudaMalloc(&p, bytes ? bytes : 1);
        if (status == cudaErrorMemoryAllocation) out_of_memory("an exchange message", bytes);
        check(status, "cudaMalloc");
        return p;
    }
    void release_message(void* p) noexcept override {
        if (p) cudaFree(p);  // fails only when the context is already gone (process exit)
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
        if (!row_bytes || !rows) return;
        // One plain copy when the rows are back to back: cudaMemcpy2D refuses pitches beyond
        // the device's maximum pitch (about 2 GiB), which a single-row copy of a whole tile has.
        if (gpu_geometry::contiguous_rows(dst_pitch, src_pitch, row_bytes, rows))
            return copy(dst, src, row_bytes * rows);
        check(cudaMemcpy2D(dst, dst_pitch, src, src_pitch, row_bytes, rows, cudaMemcpyDefault),
              "cudaMemcpy2D");
    }
    void synchronize() override { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }
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
    char bus[32] = {};
    check(cudaDeviceGetPCIBusId(bus, sizeof bus, index), "cudaDeviceGetPCIBusId");
    info.bus_id = bus;
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
    // cuBLAS starts now (tens of milliseconds: its handle, workspace and kernels), so the first
    // product's operator is not charged for it and the free memory measured below leaves it out.
    blas_handle();
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
    // One handle per device: a handle works on the device that was current when it was created,
    // so a process that selects another GPU needs a handle of its own there. Never destroyed,
    // like the memory above: cuBLAS may already be unloaded when statics are destroyed.
    static auto* handles = new std::map<int, cublasHandle_t>;
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    const auto found = handles->find(device);
    if (found != handles->end()) return found->second;
    cublasHandle_t handle = nullptr;
    check(cublasCreate(&handle), "cublasCreate");
    handles->emplace(device, handle);
    return handle;
}

}  // namespace tra::kernels::cuda
