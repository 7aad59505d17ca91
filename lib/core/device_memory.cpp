#include "core/device_memory.hpp"

#include "core/error.hpp"

namespace tra {

namespace {
DeviceMemory* installed = nullptr;
}

void install_device_memory(DeviceMemory* memory) {
    installed = memory;
}

DeviceMemory& device_memory() {
    if (!installed)
        throw Error("a tile lives on the GPU but no GPU was selected (tra run --device gpu)", {},
                    ErrorKind::Failed);
    return *installed;
}

bool device_memory_installed() {
    return installed != nullptr;
}

}  // namespace tra
