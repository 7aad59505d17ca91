#include "runtime/output_files.hpp"

#include "storage/layout.hpp"
#include "storage/tensor_file.hpp"

namespace tra::runtime {

OutputFiles::OutputFiles(const Program& program, bool replace) {
    for (const Output& o : program.outputs) {
        if (files_.count(o.file)) continue;
        try {
            files_[o.file] = std::make_unique<storage::AtomicOutput>(o.file, replace);
        } catch (const Error& e) {
            throw e.located(o.where);
        }
    }
}

void OutputFiles::write(const Output& output, const TensorRelation& relation) {
    const Frontier f = relation.keys().frontier(relation.type.key_arity);
    const auto layout = storage::RelationLayout::of(relation.type, f);
    storage::DatasetWriter writer(files_.at(output.file)->temp_path(), output.dataset,
                                  relation.type.dtype, layout.dataset_shape, layout.chunk);
    for (const auto& [key, tile] : relation.tuples) writer.write_block(layout.origin(key), tile);
    writer.close();
}

void OutputFiles::commit() {
    for (auto& [path, file] : files_) file->commit();
}

}  // namespace tra::runtime
