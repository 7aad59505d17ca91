#include "workflow/input_files.hpp"

#include "storage/chunk_presence.hpp"
#include "storage/tensor_file.hpp"

namespace tra::workflow {

std::vector<Key> sparse_input_tiles(const InputSource& source, const Shape& tile,
                                    const StepSource& src) {
    try {
        return storage::allocated_tiles(source.file, source.dataset, tile);
    } catch (const Error& e) {
        throw e.located(src.at("sparse"));
    }
}

void check_input_file(const Node& n, const StepSource& src) {
    const auto& source = std::get<InputOp>(n.op).source;
    storage::DatasetInfo info;
    try {
        info = storage::DatasetReader(source.file, source.dataset).info();
    } catch (const Error& e) {
        throw e.located(src.at("file"));
    }
    const Shape& shape = std::get<InputOp>(n.op).shape;
    if (info.dtype != n.type.dtype)
        throw Error("dtype mismatch: the workflow says " + name_of(n.type.dtype) + " but " +
                        source.file + ":" + source.dataset + " holds " + name_of(info.dtype),
                    src.at("file"));
    if (info.shape != shape)
        throw Error("shape mismatch: the workflow says " + shape.str() + " but " + source.file +
                        ":" + source.dataset + " is " + info.shape.str(),
                    src.at("shape"));
}

}  // namespace tra::workflow
