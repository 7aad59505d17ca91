#include "runtime/input_loader.hpp"

#include "storage/generator.hpp"
#include "storage/tensor_file.hpp"

namespace tra::runtime {

Tile load_input_tile(const Node& input, const Key& key) {
    const auto& op = std::get<InputOp>(input.op);
    const Shape& bound = input.type.bound;
    if (op.source.generate)
        return storage::generate_tile(*op.source.generate, input.type.dtype, op.shape, bound, key);
    storage::DatasetReader reader(op.source.file, op.source.dataset);
    if (reader.info().dtype != input.type.dtype || reader.info().shape != op.shape)
        throw Error("input " + input.name + ": " + op.source.file + ":" + op.source.dataset +
                        " no longer matches the workflow (" + name_of(reader.info().dtype) + " " +
                        reader.info().shape.str() + ")",
                    input.where);
    Shape origin(bound.size());
    for (std::size_t d = 0; d < bound.size(); ++d) origin[d] = key[d] * bound[d];
    return reader.read_block(origin, bound);
}

}  // namespace tra::runtime
