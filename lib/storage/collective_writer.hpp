#pragma once
// Every rank writes its own blocks of one dataset at once, through parallel HDF5's MPI-IO driver
// (docs/runtime.md, "Writing outputs"). Built only with a parallel HDF5 (TRA_PARALLEL_HDF5);
// a serial build writes in rank turns instead (runtime/output_files.hpp).
//
// The dataset must exist with its storage allocated (DatasetWriter, Allocation::Reproducible), or,
// for a sparse output, with the chunks of every block to be written already made (parallel HDF5
// 1.10 cannot allocate a chunk here): the blocks then go into chunks that already have their
// place in the file, so no rank changes the file's metadata, and the file's bytes do not depend
// on which rank wrote what, or in which order. Every call here is collective over the
// communicator, also on a rank with no blocks.
//
// The file is a ParallelFile of its own, so a run can keep one open across the writes of a
// loop's observed outputs: opening and closing a file through MPI-IO is collective and took
// ~0.5 ms on two ranks of one host, most of the time of writing a small observation.
#include <mpi.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "core/dtype.hpp"
#include "core/index_vector.hpp"
#include "core/tile.hpp"

namespace tra::storage {

// How the ranks' blocks reach the file: one collective MPI-IO write per round of blocks (the
// ranks' i-th blocks together), or each block written alone as soon as it is ready.
enum class Transfer { Collective, Independent };

// The i-th block of this rank: sets `origin` and returns the tile, a host tile. `host` is room
// for a copy when the tile lives elsewhere (GPU memory), so one copy at a time exists.
using BlockAt = std::function<const Tile&(std::size_t i, Shape& origin, Tile& host)>;

// An HDF5 file opened for writing by every rank of `comm` at once (MPI-IO driver).
class ParallelFile {
  public:
    // Opens the file at `path` (collective). A failure is BadInput, on every rank.
    ParallelFile(MPI_Comm comm, const std::string& path);
    // Closes the file if close() was not called (collective, as every rank unwinds together
    // from an agreed failure); errors are then not reported.
    ~ParallelFile();
    ParallelFile(const ParallelFile&) = delete;
    ParallelFile& operator=(const ParallelFile&) = delete;

    const std::string& path() const;
    // Flushes and closes the file (collective); errors are reported on every rank.
    void close();

  private:
    friend class CollectiveWriter;
    struct Handle;
    std::unique_ptr<Handle> h_;
};

class CollectiveWriter {
  public:
    // Opens `dataset` in `file` on every rank of the file's communicator. Errors (no such
    // dataset, a different shape) are BadInput, on every rank.
    CollectiveWriter(ParallelFile& file, const std::string& dataset, DType dtype,
                     const Shape& shape, Transfer transfer);
    ~CollectiveWriter();
    CollectiveWriter(const CollectiveWriter&) = delete;
    CollectiveWriter& operator=(const CollectiveWriter&) = delete;

    // Writes this rank's `count` blocks (none is fine). A failure on any rank is a tra::Error on
    // every rank, after every rank has finished its part, so no rank is left in a collective.
    void write(std::size_t count, const BlockAt& block_at);
    // Closes the dataset (collective); errors are reported on every rank. The file stays open.
    void close();

  private:
    struct Handles;
    std::unique_ptr<Handles> h_;
};

}  // namespace tra::storage
