// diagonal: the elements of one tile whose indices agree on every repeated label, e.g.
// "iij->ij" gives out[i, j] = in[i, i, j] and "iii->i" the main diagonal of a cube. The einsum
// lowering takes it on the tiles a key filter kept (tra/einsum_diagonal.hpp). The output may
// order the labels freely but keeps each of them: summing is left to einsum and aggregate.
#include <algorithm>

#include "kernels/cpu_kernels.hpp"
#include "kernels/parallel_for.hpp"

namespace tra::kernels::cpu {

namespace {

struct DiagonalSpec {
    std::string input, output;
};

DiagonalSpec parse_diagonal_spec(const std::string& text) {
    std::string s;
    for (char c : text)
        if (c != ' ') s += c;
    auto bad = [&](const std::string& why) {
        return Error("diagonal: bad spec '" + text + "': " + why + " (e.g. iij->ij)");
    };
    const std::size_t arrow = s.find("->");
    if (arrow == std::string::npos) throw bad("expected one '->'");
    DiagonalSpec spec{s.substr(0, arrow), s.substr(arrow + 2)};
    for (char c : spec.input + spec.output)
        if (c < 'a' || c > 'z')
            throw bad("labels are single lowercase letters, got '" + std::string(1, c) + "'");
    for (std::size_t i = 0; i < spec.output.size(); ++i) {
        if (spec.output.find(spec.output[i], i + 1) != std::string::npos)
            throw bad("label '" + std::string(1, spec.output[i]) + "' repeats in the output");
        if (spec.input.find(spec.output[i]) == std::string::npos)
            throw bad("output label '" + std::string(1, spec.output[i]) +
                      "' is not an input label");
    }
    for (char c : spec.input)
        if (spec.output.find(c) == std::string::npos)
            throw bad("input label '" + std::string(1, c) + "' is missing from the output");
    return spec;
}

Checked<Shape> diagonal_shape(const DiagonalSpec& spec, const Shape& in) {
    if (in.size() != spec.input.size())
        return Error("diagonal(" + spec.input + "->" + spec.output + "): the tile has shape " +
                     in.str() + " but '" + spec.input + "' names " +
                     std::to_string(spec.input.size()) + " dimensions");
    Shape out;
    for (char c : spec.output) {
        const std::size_t first = spec.input.find(c);
        for (std::size_t d = first + 1; d < spec.input.size(); ++d)
            if (spec.input[d] == c && in[d] != in[first])
                return Error("diagonal(" + spec.input + "->" + spec.output + "): label '" +
                             std::string(1, c) + "' has extents " + std::to_string(in[first]) +
                             " and " + std::to_string(in[d]) + " in " + in.str());
        out.push_back(in[first]);
    }
    return out;
}

// out (row-major, of `shape`) = in at `strides` per output dimension: rows along the last
// dimension, split by rows among kernel_threads() threads (each row written by one).
template <class T>
void copy_diagonal(const T* in, T* out, const Shape& shape,
                   const std::vector<std::int64_t>& strides) {
    if (shape.product() == 0) return;
    if (shape.empty()) {
        out[0] = in[0];
        return;
    }
    const std::size_t last = shape.size() - 1;
    const std::int64_t row = shape[last], step = strides[last];
    const std::int64_t rows = shape.product() / row;
    parallel_for(rows, kGrainElements / row + 1, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t r = begin; r < end; ++r) {
            std::int64_t from = 0;  // r's offset: its index digits (all but the last) at strides
            for (std::int64_t d = static_cast<std::int64_t>(last), rest = r; d-- > 0;) {
                from += (rest % shape[static_cast<std::size_t>(d)]) *
                        strides[static_cast<std::size_t>(d)];
                rest /= shape[static_cast<std::size_t>(d)];
            }
            T* dst = out + r * row;
            for (std::int64_t i = 0; i < row; ++i) dst[i] = in[from + i * step];
        }
    });
}

}  // namespace

DiagonalLayout diagonal_layout(const KernelParams& params, const Shape& input) {
    const DiagonalSpec spec = parse_diagonal_spec(params.spec);
    DiagonalLayout l{diagonal_shape(spec, input).value(),
                     std::vector<std::int64_t>(spec.output.size(), 0)};
    std::int64_t stride = 1;
    for (std::size_t d = input.size(); d-- > 0;) {
        l.strides[spec.output.find(spec.input[d])] += stride;
        stride *= input[d];
    }
    return l;
}

Kernel diagonal_kernel() {
    Kernel k;
    k.name = "diagonal";
    k.arity = 1;
    // Picking elements out commutes with every elementwise aggregation.
    k.properties.distributes_over = {"add", "max", "min", "mul"};
    k.properties.zero_preserving = true;  // picks elements out, so zeros stay zeros
    k.properties.finite = true;
    k.summary =
        "the elements whose indices agree on each repeated label: "
        "{name: diagonal, spec: \"iij->ij\"} gives out[i, j] = in[i, i, j]";
    k.operand_count = [](const KernelParams& p) {
        parse_diagonal_spec(p.spec);
        return 1;
    };
    k.describe = [](const KernelParams& p) { return "diagonal(" + p.spec + ")"; };
    k.output_shape = [](std::span<const Shape> ops, const KernelParams& p) -> Checked<Shape> {
        if (auto problem = operand_count_problem("diagonal", ops.size(), 1)) return *problem;
        return diagonal_shape(parse_diagonal_spec(p.spec), ops[0]);
    };
    k.bytes_read = [](std::span<const Shape> ops, const KernelParams& p,
                      std::int64_t element_bytes) -> std::int64_t {
        // Each output element reads one input element; where the output's last dimension steps
        // through the input by more than one element, each such read costs a line of its own
        // (up to 64 bytes: the elements between two reads).
        const DiagonalLayout l = diagonal_layout(p, ops[0]);
        const std::int64_t step =
            l.strides.empty() ? 1 : std::max<std::int64_t>(1, l.strides.back());
        return l.shape.product() * std::min<std::int64_t>(64, step * element_bytes);
    };
    k.apply = [](std::span<const Tile* const> ops, const KernelParams& p, const TilePosition&) {
        expect_operand_count("diagonal", ops.size(), 1);
        const DType d = common_dtype("diagonal", ops);
        const DiagonalLayout l = diagonal_layout(p, ops[0]->shape());
        Tile out = Tile::uninitialized(d, l.shape);  // copy_diagonal writes every element
        visit_dtype(d, [&](auto t) {
            using T = decltype(t);
            copy_diagonal(ops[0]->data<T>(), out.data<T>(), l.shape, l.strides);
        });
        return out;
    };
    return k;
}

}  // namespace tra::kernels::cpu
