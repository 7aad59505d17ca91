#include <algorithm>
#include <charconv>

#include "kernels/cpu_kernels.hpp"
#include "kernels/registry.hpp"

namespace tra::kernels {

namespace {

// Shortest text that reads back as the same double: "0.5", not "0.500000".
std::string format_number(double x) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
    return ec == std::errc() ? std::string(buf, end) : std::to_string(x);
}

const Kernel& checked(const Kernel* k) {
    if (!k) throw Error("kernel call has no kernel", {}, ErrorKind::Failed);
    return *k;
}

}  // namespace

KernelCall::KernelCall(const std::string& name, KernelParams params)
    : kernel_(find_kernel(name)), params_(std::move(params)) {
    if (!kernel_) {
        std::string known;
        for (const Kernel* k : all_kernels()) known += (known.empty() ? "" : ", ") + k->name;
        throw Error("unknown kernel '" + name + "'; known kernels: " + known);
    }
    operand_count_ = kernel_->operand_count ? kernel_->operand_count(params_) : kernel_->arity;
    properties_ = kernel_->properties_of ? kernel_->properties_of(params_) : kernel_->properties;
}

int KernelCall::operand_count() const {
    return operand_count_;
}

Checked<Shape> KernelCall::try_output_shape(std::span<const Shape> operands) const {
    const Kernel& k = checked(kernel_);
    auto want = static_cast<std::size_t>(operand_count_);
    if (auto problem = cpu::operand_count_problem(str(), operands.size(), want)) return *problem;
    return k.output_shape(operands, params_);
}

Shape KernelCall::output_shape(std::span<const Shape> operands) const {
    return try_output_shape(operands).value();
}

Tile KernelCall::apply(std::span<const Tile* const> operands, const TilePosition& where) const {
    const Kernel& k = checked(kernel_);
    auto want = static_cast<std::size_t>(operand_count_);
    // str() only on the error path: apply runs once per tile.
    if (operands.size() != want) cpu::expect_operand_count(str(), operands.size(), want);
    cpu::common_dtype(k.name, operands);
    if (!cpu::on_device(k.name, operands)) return k.apply(operands, params_, where);
    if (!k.apply_on_device)
        throw Error(k.name + " has no GPU implementation in this build", {}, ErrorKind::Failed);
    return k.apply_on_device(operands, params_, where);
}

bool KernelCall::accumulate(Tile& acc, std::span<const Tile* const> operands) const {
    const Kernel& k = checked(kernel_);
    if (!k.accumulate || operands.size() != static_cast<std::size_t>(operand_count_)) return false;
    const bool device = cpu::on_device(k.name, operands);
    if (device != acc.on_device()) return false;
    if (cpu::common_dtype(k.name, operands) != acc.dtype()) return false;
    if (device) return k.accumulate_on_device && k.accumulate_on_device(acc, operands, params_);
    return k.accumulate(acc, operands, params_);
}

std::int64_t KernelCall::flops(std::span<const Shape> operands) const {
    const Kernel& k = checked(kernel_);
    return k.flops ? k.flops(operands, params_) : 0;
}

std::optional<GemmCalls> KernelCall::gemm_calls(std::span<const Shape> operands) const {
    const Kernel& k = checked(kernel_);
    if (!k.gemm_calls) return std::nullopt;
    return k.gemm_calls(operands, params_);
}

std::optional<std::int64_t> KernelCall::bytes_read(std::span<const Shape> operands,
                                                   std::int64_t element_bytes) const {
    const Kernel& k = checked(kernel_);
    if (!k.bytes_read) return std::nullopt;
    return k.bytes_read(operands, params_, element_bytes);
}

bool KernelCall::can_accumulate_into(const KernelCall& aggregate) const {
    const Kernel& k = checked(kernel_);
    return k.accumulate && !properties_.accumulates_with.empty() &&
           checked(aggregate.kernel_).name == properties_.accumulates_with;
}

bool KernelCall::distributes_over(const KernelCall& g) const {
    checked(kernel_);
    const std::vector<std::string>& over = properties_.distributes_over;
    return std::find(over.begin(), over.end(), checked(g.kernel_).name) != over.end();
}

std::string KernelCall::str() const {
    const Kernel& k = checked(kernel_);
    if (k.describe) return k.describe(params_);
    if (params_.factor) return k.name + "(" + format_number(*params_.factor) + ")";
    return k.name;
}

}  // namespace tra::kernels
