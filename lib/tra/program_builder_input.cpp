// The ProgramBuilder's inputs: a tensor read from a file or generated, whole or a slice per loop
// iteration, dense or block-sparse (docs/workflow-format.md). The other steps are in
// program_builder.cpp and program_builder_layout.cpp.
#include "core/checked_math.hpp"
#include "tra/program_builder.hpp"
#include "tra/program_builder_support.hpp"
#include "tra/sparse_rules.hpp"
#include "tra/tuple_limit.hpp"

namespace tra {

using builder::checked_tile_bytes;
using builder::divisors_near;
using builder::join_list;

namespace {

// `sparse: true` and `density:` where they cannot apply.
std::optional<Error> sparse_source_problem(const InputSource& source, const StepSource& src) {
    const auto& generate = source.generate;
    if (generate && !(generate->density > 0.0 && generate->density <= 1.0))
        return Error("density must be in (0, 1], got " + std::to_string(generate->density),
                     src.at("generate"));
    if (source.sparse && generate)
        return Error(
            "sparse: true is for file inputs (absent tiles are unwritten chunks); a "
            "generated input says how many tiles are present with density:",
            src.at("sparse"));
    if ((source.sparse || (generate && generate->density < 1.0)) && source.slice)
        return Error("a block-sparse input cannot be read a slice at a time", src.at("slice"));
    return std::nullopt;
}

}  // namespace

Checked<NodeId> ProgramBuilder::try_add_input(const std::string& name, const Shape& shape,
                                              const Shape& tile, DType dtype, InputSource source,
                                              const StepSource& src,
                                              std::optional<std::vector<Key>> present) {
    if (shape.size() != tile.size())
        return Error("tile has " + std::to_string(tile.size()) + " dimensions but shape has " +
                         std::to_string(shape.size()),
                     src.at("tile"));
    Frontier f(shape.size());
    for (std::size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] <= 0) return Error("shape must be positive", src.at("shape"));
        if (tile[d] <= 0) return Error("tile must be positive", src.at("tile"));
        if (shape[d] % tile[d] != 0 && !source.padded)
            return Error(
                "dimension " + std::to_string(d) + ": shape " + std::to_string(shape[d]) +
                    " is not divisible by tile " + std::to_string(tile[d]) +
                    "; tile sizes that divide it: " + join_list(divisors_near(shape[d], tile[d])),
                src.at("tile"));
        f[d] = ceil_div(shape[d], tile[d]);
    }
    if (const auto& slice = source.slice) {
        const std::size_t d = slice->dim;
        if (d >= shape.size())
            return Error("slice dim " + std::to_string(d) + " is out of range: the input has " +
                             std::to_string(shape.size()) + " dimensions",
                         src.at("slice"));
        if (slice->size <= 0 || shape[d] % slice->size != 0 || slice->size % tile[d] != 0)
            return Error("slice size " + std::to_string(slice->size) + " must divide the extent " +
                             std::to_string(shape[d]) + " of dimension " + std::to_string(d) +
                             " and be a multiple of its tile " + std::to_string(tile[d]),
                         src.at("slice"));
        f[d] = slice->size / tile[d];
    }
    if (!checked_tile_bytes(tile, dtype))
        return Error("a tile of " + tile.str() + " elements has more bytes than 64 bits count",
                     src.at("tile"));
    const RelationType type{shape.size(), tile, dtype};
    std::string hint;
    if (tuples_in_box(f) > max_tuples_) hint = coarser_tiles_hint(shape, tile, max_tuples_);
    const auto& generate = source.generate;
    const bool sparse = source.sparse || (generate && generate->density < 1.0);
    if (auto p = sparse_source_problem(source, src)) return *p;
    if (!sparse) {
        Checked<KeySet> keys = dense_keys(name, f, type, src.at("tile"), hint);
        if (!keys) return keys.problem();
        return append(Node{name,
                           InputOp{shape, std::move(source)},
                           {},
                           type,
                           std::move(*keys),
                           f,
                           src.step,
                           "",
                           false});
    }
    // A sparse input's keys are enumerated whatever the limit's scope: its presence is drawn
    // (density) or read (chunks) tile by tile.
    if (auto p = too_many_tuples(name, tuples_in_box(f), max_tuples_, src.at("tile"), hint))
        return *p;
    Node n{name, InputOp{shape, source}, {}, type, {}, f, src.step, "", false};
    if (present) {
        for (const Key& k : *present) n.keys.insert(k);
    } else {
        for (const Key& k : KeySet::box(f))
            if (!generate || storage::tile_present(*generate, f, k)) n.keys.insert(k);
    }
    sparse::finish(n, f);
    return append(std::move(n));
}

}  // namespace tra
