// fill_padding: sets the entries of a tile that lie past a tensor's extent along one dimension
// to a value. A padded dimension (docs/workflow-format.md, "Padding") holds zeros past its
// extent; where a step needs another value there (a softmax's max needs -inf, the identity of
// max), the lowering inserts this kernel (tra/softmax_lowering.hpp). It reads its tile's
// position, so it needs a plain tensor (key position d tiles dimension d).
#include <algorithm>
#include <charconv>

#include "kernels/cpu_kernels.hpp"
#include "kernels/parallel_for.hpp"

namespace tra::kernels::cpu {

std::optional<PaddingFill> parse_padding_fill(const KernelParams& params) {
    // spec "D:E": dimension D, extent E.
    const std::string& s = params.spec;
    const auto colon = s.find(':');
    PaddingFill f;
    if (colon == std::string::npos || !params.factor) return std::nullopt;
    const auto [dim_end, dim_ec] = std::from_chars(s.data(), s.data() + colon, f.dim);
    const auto [ext_end, ext_ec] =
        std::from_chars(s.data() + colon + 1, s.data() + s.size(), f.extent);
    if (dim_ec != std::errc() || dim_end != s.data() + colon || ext_ec != std::errc() ||
        ext_end != s.data() + s.size() || f.dim < 0 || f.extent < 0)
        return std::nullopt;
    f.value = *params.factor;
    return f;
}

std::int64_t PaddingFill::first_padded(const Shape& tile, const TilePosition& where) const {
    const auto d = static_cast<std::size_t>(dim);
    if (where.key.size() != tile.size())
        throw Error("fill_padding: the tile has rank " + std::to_string(tile.size()) +
                    " but its key " + where.key.str() + " has " + std::to_string(where.key.size()) +
                    " positions");
    const std::int64_t start = where.key[d] * tile[d];  // the tile's first index along dim
    return std::clamp<std::int64_t>(extent - start, 0, tile[d]);
}

namespace {

constexpr const char* kUsage =
    "fill_padding needs spec \"D:E\" (dimension D, extent E) and a factor (the value), e.g. "
    "{name: fill_padding, spec: \"1:50257\", factor: -.inf}";

Checked<Shape> fill_shape(std::span<const Shape> ops, const KernelParams& p) {
    if (auto problem = operand_count_problem("fill_padding", ops.size(), 1)) return *problem;
    const std::optional<PaddingFill> f = parse_padding_fill(p);
    if (!f) return Error(kUsage);
    if (static_cast<std::size_t>(f->dim) >= ops[0].size())
        return Error("fill_padding: dimension " + std::to_string(f->dim) +
                     " is out of range for a tile " + ops[0].str());
    return ops[0];
}

// out = in, then out[..., i, ...] = value for i >= from along `dim` (outer x tile[dim] x inner).
template <class T>
void fill_past(const T* in, T* out, const Shape& shape, std::size_t dim, std::int64_t from,
               T value) {
    std::int64_t outer = 1, inner = 1;
    for (std::size_t d = 0; d < dim; ++d) outer *= shape[d];
    for (std::size_t d = dim + 1; d < shape.size(); ++d) inner *= shape[d];
    const std::int64_t along = shape[dim], kept = from * inner, block = along * inner;
    if (outer == 0 || block == 0) return;  // an empty tile
    parallel_for(outer, kGrainElements / block + 1, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t o = begin; o < end; ++o) {
            std::copy(in + o * block, in + o * block + kept, out + o * block);
            std::fill(out + o * block + kept, out + (o + 1) * block, value);
        }
    });
}

}  // namespace

Kernel fill_padding_kernel() {
    Kernel k;
    k.name = "fill_padding";
    k.arity = 1;
    k.properties.reads_tile_position = true;
    k.summary =
        "sets the entries past extent E along dimension D to a value: {name: fill_padding, "
        "spec: \"D:E\", factor: VALUE} (a padded softmax's -inf)";
    k.operand_count = [](const KernelParams&) { return 1; };
    k.describe = [](const KernelParams& p) {
        char value[64] = "?";
        if (p.factor) *std::to_chars(value, value + sizeof value - 1, *p.factor).ptr = '\0';
        return "fill_padding(" + p.spec + ", " + value + ")";
    };
    k.output_shape = fill_shape;
    k.apply = [](std::span<const Tile* const> ops, const KernelParams& p,
                 const TilePosition& where) {
        expect_operand_count("fill_padding", ops.size(), 1);
        const DType d = common_dtype("fill_padding", ops);
        const Shape& shape = ops[0]->shape();
        fill_shape(std::span<const Shape>(&shape, 1), p).value();
        const PaddingFill f = *parse_padding_fill(p);
        const std::int64_t from = f.first_padded(shape, where);
        Tile out = Tile::uninitialized(d, shape);  // fill_past writes every element
        visit_dtype(d, [&](auto t) {
            using T = decltype(t);
            fill_past(ops[0]->data<T>(), out.data<T>(), shape, static_cast<std::size_t>(f.dim),
                      from, static_cast<T>(f.value));
        });
        return out;
    };
    return k;
}

}  // namespace tra::kernels::cpu
