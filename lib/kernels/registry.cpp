// The one list of kernels. Each kernel file contributes its kernels through cpu_kernels.hpp, and
// the CUDA backend, when built, their GPU implementations; the registry is built on first use,
// so no static initialisation order matters.
#include "kernels/registry.hpp"

#include <algorithm>

#include "kernels/cpu_kernels.hpp"
#if TRA_CUDA
#include "kernels/cuda/cuda_backend.hpp"
#endif

namespace tra::kernels {

namespace {

const std::vector<Kernel>& registry() {
    static const std::vector<Kernel> kernels = [] {
        std::vector<Kernel> all;
        for (auto part :
             {cpu::matmul_kernels(), cpu::elementwise_kernels(), cpu::unary_kernels(),
              cpu::reduction_kernels(), cpu::argmin_kernels(), cpu::expression_kernels(),
              std::vector<Kernel>{cpu::einsum_kernel(), cpu::diagonal_kernel(),
                                  cpu::fill_padding_kernel()}})
            for (Kernel& k : part) all.push_back(std::move(k));
#if TRA_CUDA
        for (Kernel& k : all) {
            k.apply_on_device = cuda::device_apply(k);
            k.accumulate_on_device = cuda::device_accumulate(k);
        }
#endif
        std::sort(all.begin(), all.end(),
                  [](const Kernel& a, const Kernel& b) { return a.name < b.name; });
        for (std::size_t i = 1; i < all.size(); ++i)
            if (all[i].name == all[i - 1].name)
                throw Error("kernel '" + all[i].name + "' is registered twice", {},
                            ErrorKind::Failed);
        return all;
    }();
    return kernels;
}

}  // namespace

const Kernel* find_kernel(const std::string& name) {
    const std::vector<Kernel>& all = registry();
    auto it = std::lower_bound(all.begin(), all.end(), name,
                               [](const Kernel& k, const std::string& n) { return k.name < n; });
    return it != all.end() && it->name == name ? &*it : nullptr;
}

std::vector<const Kernel*> all_kernels() {
    std::vector<const Kernel*> out;
    for (const Kernel& k : registry()) out.push_back(&k);
    return out;
}

}  // namespace tra::kernels
