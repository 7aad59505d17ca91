#include "ia/gemm_permutes.hpp"

#include <string>
#include <vector>

#include "kernels/einsum_gemm.hpp"

namespace tra::ia {

namespace {

bool lowercase(const std::string& labels) {
    for (char c : labels)
        if (c < 'a' || c > 'z') return false;
    return true;
}

// `labels` without those in neither `other` nor `out` (summed inside this operand alone).
std::string shared_labels(const std::string& labels, const std::string& other,
                          const std::string& out) {
    std::string kept;
    for (char c : labels)
        if (other.find(c) != std::string::npos || out.find(c) != std::string::npos) kept += c;
    return kept;
}

}  // namespace

std::int64_t gemm_permuted_elements(const kernels::KernelCall& call,
                                    std::span<const Shape> operands) {
    const kernels::KernelParams& p = call.params();
    if (call.name() != "einsum" || p.join_op != "mul" || p.agg_op != "add" || operands.size() != 2)
        return 0;
    const auto comma = p.spec.find(','), arrow = p.spec.find("->");
    if (comma == std::string::npos || arrow == std::string::npos || comma > arrow) return 0;
    const std::string a = p.spec.substr(0, comma), b = p.spec.substr(comma + 1, arrow - comma - 1),
                      o = p.spec.substr(arrow + 2);
    if (!lowercase(a + b + o) || a.size() != operands[0].size() || b.size() != operands[1].size())
        return 0;
    std::vector<std::int64_t> extent_of_letter(26, 1);
    for (std::size_t d = 0; d < a.size(); ++d)
        extent_of_letter[static_cast<std::size_t>(a[d] - 'a')] = operands[0][d];
    for (std::size_t d = 0; d < b.size(); ++d)
        extent_of_letter[static_cast<std::size_t>(b[d] - 'a')] = operands[1][d];
    // The CPU kernel's plan (not canonical: that one is the GPU's single cuBLAS call).
    return kernels::cpu::plan_gemm(shared_labels(a, b, o), shared_labels(b, a, o), o,
                                   extent_of_letter)
        .permuted_elements();
}

}  // namespace tra::ia
