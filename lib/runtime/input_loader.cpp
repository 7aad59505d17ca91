#include "runtime/input_loader.hpp"

#include "storage/generator.hpp"
#include "storage/layout.hpp"
#include "storage/padded_blocks.hpp"

namespace tra::runtime {

InputTiles::InputTiles(const Node& input, std::int64_t iteration) : input_(input) {
    const auto& op = std::get<InputOp>(input.op);
    if (const auto& slice = op.source.slice)
        offset_ = op.source.slice_key_offset(iteration, input.type.bound[slice->dim],
                                             op.shape[slice->dim]);
    if (op.source.generate) return;
    reader_.emplace(op.source.file, op.source.dataset);
    const auto& info = reader_->info();
    if (info.dtype != input.type.dtype || info.shape != op.shape)
        throw Error("input " + input.name + ": " + op.source.file + ":" + op.source.dataset +
                        " no longer matches the workflow (it holds " + name_of(info.dtype) + " " +
                        info.shape.str() + ")",
                    input.where);
}

Tile InputTiles::tile(const Key& key) const {
    const auto& op = std::get<InputOp>(input_.op);
    Key at = key;  // the tile's key in the whole source
    if (op.source.slice) at[op.source.slice->dim] += offset_;
    if (!reader_)
        return storage::generate_tile(*op.source.generate, input_.type.dtype, op.shape,
                                      input_.type.bound, at);
    return storage::read_padded_block(
        *reader_, storage::RelationLayout::of(input_.type, input_.frontier).origin(at),
        input_.type.bound);
}

}  // namespace tra::runtime
