#pragma once
// The registry of all kernels tra knows, CPU implementations included.
#include <string>
#include <vector>

#include "kernels/kernel.hpp"

namespace tra::kernels {

// nullptr when no kernel has this name.
const Kernel* find_kernel(const std::string& name);
// Every kernel, ordered by name.
std::vector<const Kernel*> all_kernels();

}  // namespace tra::kernels
