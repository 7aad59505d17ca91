#include "runtime/output_files.hpp"

#include <cstdlib>

#include "core/error.hpp"
#include "runtime/rank_agreement.hpp"
#include "storage/padded_blocks.hpp"

namespace tra::runtime {

storage::RelationLayout output_layout(const Node& node, const Shape& cropped) {
    return storage::RelationLayout::of(node.type, node.frontier, cropped);
}

storage::DatasetWriter::Allocation output_allocation(bool sparse, const Node& node,
                                                     bool distributed) {
    using Allocation = storage::DatasetWriter::Allocation;
    if (sparse) return Allocation::Sparse;
    // Not Node::absent_tuples(): it counts none for keys held as a box, which a sparse-derived
    // relation's frontier may exceed (its last row of tiles absent).
    if (static_cast<std::int64_t>(node.keys.size()) < node.frontier.product())
        return Allocation::ReproducibleZeros;
    return distributed ? Allocation::Reproducible : Allocation::Incremental;
}

OutputFiles::OutputFiles(const Program& program, bool replace) {
    for (const Output& o : program.outputs) {
        const Node& node = program.node(o.node);
        targets_[{o.file, o.dataset}] = {output_layout(node, o.shape),
                                         output_allocation(o.sparse, node, false)};
        if (files_.count(o.file)) continue;
        try {
            auto file = std::make_unique<storage::AtomicOutput>(o.file, replace);
            // --force replaces the datasets the workflow writes, not the rest of the file.
            if (replace) {
                std::vector<std::string> written;
                for (const Output& w : program.outputs)
                    if (w.file == o.file) written.push_back(w.dataset);
                file->keep_existing_objects(written);
            }
            files_[o.file] = std::move(file);
        } catch (const Error& e) {
            throw e.located(o.where);
        }
    }
}

void OutputFiles::write(const Output& output, const TensorRelation& relation) {
    const Target& target = targets_.at({output.file, output.dataset});
    const auto& layout = target.layout;
    storage::DatasetWriter writer(files_.at(output.file)->temp_path(), output.dataset,
                                  relation.type.dtype, layout.dataset_shape, layout.chunk,
                                  target.allocation);
    Tile scratch;
    for (const auto& [key, tile] : relation.tuples)
        writer.write_block(layout.origin(key), layout.block(key, tile, scratch));
    writer.close();
}

void create_relation_dataset(const std::string& path, const std::string& dataset, const Node& node,
                             bool sparse, const Shape& cropped) {
    const auto layout = output_layout(node, cropped);
    storage::DatasetWriter writer(path, dataset, node.type.dtype, layout.dataset_shape,
                                  layout.chunk, output_allocation(sparse, node, true));
    if (sparse) {
        const Tile zeros(node.type.dtype, node.type.bound);
        Tile scratch;
        for (const Key& k : node.keys)
            writer.write_block(layout.origin(k), layout.block(k, zeros, scratch));
    }
    writer.close();
}

void OutputFiles::create_datasets(const Program& program) {
    for (const Output& o : program.outputs)
        create_relation_dataset(files_.at(o.file)->temp_path(), o.dataset, program.node(o.node),
                                o.sparse, o.shape);
}

std::vector<std::string> OutputFiles::temp_paths(const Program& program) const {
    std::vector<std::string> paths;
    for (const Output& o : program.outputs) paths.push_back(files_.at(o.file)->temp_path());
    return paths;
}

TensorRelation OutputFiles::read(const Output& output, const Node& node) const {
    const auto layout = output_layout(node, output.shape);
    const storage::DatasetReader reader(files_.at(output.file)->temp_path(), output.dataset);
    TensorRelation r;
    r.type = node.type;
    for (const Key& k : node.keys)  // padded tiles read back with zeros in the padding
        r.tuples.emplace(k, storage::read_padded_block(reader, layout.origin(k), node.type.bound));
    return r;
}

void OutputFiles::commit() {
    for (auto& [path, file] : files_) file->commit();
}

OutputWriter output_writer(MPI_Comm comm) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    // Rank 0 decides for all: a rank choosing differently would wait in another collective.
    // -1: an unknown name, which every rank then refuses. One rank has no one to write with, and
    // the serial driver is cheaper than MPI-IO's (tools/bench/output_writers.sh).
    int choice = TRA_PARALLEL_HDF5 && size > 1 ? static_cast<int>(OutputWriter::Independent)
                                               : static_cast<int>(OutputWriter::Turns);
    std::string named;
    if (rank == 0)
        if (const char* v = std::getenv("TRA_OUTPUT_WRITER"); v && *v) {
            named = v;
            if (named == "turns")
                choice = static_cast<int>(OutputWriter::Turns);
            else if (TRA_PARALLEL_HDF5 && named == "collective")
                choice = static_cast<int>(OutputWriter::Collective);
            else if (TRA_PARALLEL_HDF5 && named == "independent")
                choice = static_cast<int>(OutputWriter::Independent);
            else
                choice = -1;
        }
    MPI_Bcast(&choice, 1, MPI_INT, 0, comm);
    if (choice < 0)
        throw Error(
            std::string("TRA_OUTPUT_WRITER is turns") +
            (TRA_PARALLEL_HDF5 ? ", collective or independent" : " (this tra has a serial HDF5)") +
            (rank == 0 ? ", not '" + named + "'" : ""));
    return static_cast<OutputWriter>(choice);
}

void write_in_turns(MPI_Comm comm, const std::function<void()>& write_mine) {
    // One agreed step per turn: the ranks learn of a failure at once, and only collectives
    // travel, so a point-to-point count (pml monitoring) sees exchanges alone.
    const RankAgreement agree(comm);
    for (int turn = 0; turn < agree.size(); ++turn)
        agree.step([&] {
            if (turn == agree.rank()) write_mine();
        });
}

}  // namespace tra::runtime
