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
#include <mpi.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/relation.hpp"
#include "storage/atomic_output.hpp"
#include "storage/layout.hpp"
#include "tra/program.hpp"

namespace tra::runtime {

// How the relation of `node` (a program output) lies in its dataset.
storage::RelationLayout output_layout(const Node& node);

class OutputFiles {
public:
    OutputFiles(const Program& program, bool replace);

    // Writes one output tile by tile in its dataset (tensor or relation layout).
    void write(const Output& output, const TensorRelation& relation);

    // Creates every output's dataset, empty, in its temporary file.
    void create_datasets(const Program& program);
    // The temporary file each output is written to, in program.outputs order.
    std::vector<std::string> temp_paths(const Program& program) const;
    // Reads an output back from its temporary file (before commit): every tuple of its node.
    TensorRelation read(const Output& output, const Node& node) const;

    void commit();

private:
    std::map<std::string, std::unique_ptr<storage::AtomicOutput>> files_;
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
