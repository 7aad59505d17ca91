#include "kernels/cpu_kernels.hpp"

namespace tra::kernels::cpu {

std::optional<Error> operand_count_problem(const std::string& kernel, std::size_t got,
                                           std::size_t want) {
    if (got == want) return std::nullopt;
    return Error(kernel + " takes " + std::to_string(want) +
                 (want == 1 ? " operand" : " operands") + ", got " + std::to_string(got));
}

void expect_operand_count(const std::string& kernel, std::size_t got, std::size_t want) {
    if (auto problem = operand_count_problem(kernel, got, want)) throw *problem;
}

std::optional<Error> rank_problem(const std::string& kernel, const Shape& shape, std::size_t rank) {
    if (shape.size() == rank) return std::nullopt;
    return Error(kernel + ": expects a " + std::to_string(rank) + "-D tile, got " + shape.str());
}

DType common_dtype(const std::string& kernel, std::span<const Tile* const> operands) {
    if (operands.empty()) throw Error(kernel + ": no operands");
    for (const Tile* t : operands)
        if (!t) throw Error(kernel + ": missing operand tile");
    DType d = operands[0]->dtype();
    for (const Tile* t : operands)
        if (t->dtype() != d)
            throw Error(kernel + ": operands have different dtypes: " + name_of(d) + " and " +
                        name_of(t->dtype()));
    return d;
}

bool on_device(const std::string& kernel, std::span<const Tile* const> operands) {
    bool device = !operands.empty() && operands[0]->on_device();
    for (const Tile* t : operands)
        if (t->on_device() != device)
            throw Error(kernel + ": some operands live on the GPU and some in host memory", {},
                        ErrorKind::Failed);
    return device;
}

std::vector<Shape> shapes_of(std::span<const Tile* const> operands) {
    std::vector<Shape> shapes;
    shapes.reserve(operands.size());
    for (const Tile* t : operands) shapes.push_back(t->shape());
    return shapes;
}

std::string shapes_str(std::span<const Shape> shapes, const std::string& separator) {
    std::string s;
    for (std::size_t i = 0; i < shapes.size(); ++i) s += (i ? separator : "") + shapes[i].str();
    return s;
}

}  // namespace tra::kernels::cpu
