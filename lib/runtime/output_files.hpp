#pragma once
// A program's output files, claimed before any work starts (so an existing file without --force
// fails fast) and written under temporary names; commit() renames them all into place. If the
// run fails before commit, nothing appears at any final name.
//
// A distributed run (docs/runtime.md, "Writing outputs") has rank 0 claim the files and create
// every output's empty dataset, its chunks allocated, in its temporary file (create_datasets);
// every rank then writes the tiles it holds: all ranks at once through parallel HDF5
// (storage/collective_writer.hpp), or, with a serial HDF5, one rank at a time (write_in_turns).
// Rank 0 renames the files into place after every rank has finished.
//
// A sparse output (`sparse: true`) has a chunk per tile and only its relation's tiles get one:
// create_datasets writes zeros into exactly those, in key order, so the file does not depend on
// which rank writes which tile, and parallel HDF5 writes into chunks that exist (it cannot
// allocate one: docs/runtime.md, "Sparse inputs and outputs").
#include <mpi.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/relation.hpp"
#include "storage/atomic_output.hpp"
#include "storage/layout.hpp"
#include "storage/tensor_file.hpp"
#include "tra/program.hpp"

namespace tra::runtime {

// How the relation of `node` (a program output) lies in its dataset: over the node's frontier,
// that of the dense equivalent for a sparse-derived relation, cropped to `cropped`
// (Output::shape) where it is set.
storage::RelationLayout output_layout(const Node& node, const Shape& cropped = {});

// How the dataset of `node`'s relation is made: Sparse for a sparse output; for a dense one
// with absent tiles ReproducibleZeros (they read as exact zeros); else Reproducible when the
// ranks write it (`distributed`), Incremental when one process writes every tile in key order.
storage::DatasetWriter::Allocation output_allocation(bool sparse, const Node& node,
                                                     bool distributed);

// Creates (rank 0) the empty dataset `dataset` in the file at `path` for the ranks to write the
// relation of `node` into: dense (output_allocation), or `sparse` with the chunks of the node's
// keys made now, holding zeros, in key order (see above). For outputs and checkpoints.
void create_relation_dataset(const std::string& path, const std::string& dataset, const Node& node,
                             bool sparse, const Shape& cropped = {});

class OutputFiles {
  public:
    OutputFiles(const Program& program, bool replace);

    // Writes one output tile by tile in its dataset (tensor or relation layout), laid out over
    // its node's frontier.
    void write(const Output& output, const TensorRelation& relation);

    // Creates every output's dataset, empty, in its temporary file; a sparse output's chunks
    // are those of its node's keys, holding zeros.
    void create_datasets(const Program& program);
    // The temporary file each output is written to, in program.outputs order.
    std::vector<std::string> temp_paths(const Program& program) const;
    // Reads an output back from its temporary file (before commit): every tuple of its node.
    TensorRelation read(const Output& output, const Node& node) const;

    void commit();

  private:
    std::map<std::string, std::unique_ptr<storage::AtomicOutput>> files_;
    // What write() needs of each output's node, by the output's file and dataset.
    struct Target {
        storage::RelationLayout layout;
        storage::DatasetWriter::Allocation allocation;
    };
    std::map<std::pair<std::string, std::string>, Target> targets_;
};

// How the ranks write their output tiles. Collective and Independent (parallel HDF5 only) write
// at once, with collective or independent MPI-IO transfers; Turns one rank after another.
enum class OutputWriter { Turns, Collective, Independent };

// The writer this run uses: Independent with a parallel HDF5 and several ranks, else Turns.
// TRA_OUTPUT_WRITER (turns, collective, independent; rank 0's value) overrides it, for the
// benchmark (tools/bench/output_writers.sh) and the byte-identity test; an unknown or unavailable
// value is an error. Collective.
OutputWriter output_writer(MPI_Comm comm);

// Runs `write_mine` on each rank in turn (rank 0 first), each rank starting when the one before
// it has finished (and closed its files). A failure on one rank ends the turns: the ranks agree
// on it (rank_agreement.hpp: AgreedFailure on every rank, one message). Collective.
void write_in_turns(MPI_Comm comm, const std::function<void()>& write_mine);

}  // namespace tra::runtime
