#pragma once
// Tile-by-tile access to dense HDF5 datasets (chunked by the tile shape on write), readable by
// h5dump and h5py. A whole tensor never passes through one buffer unless it is one tile.
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/index_vector.hpp"
#include "core/tile.hpp"

namespace tra::storage {

struct DatasetInfo {
    DType dtype = DType::F64;
    Shape shape;
    Shape chunk;  // the dataset's chunk dims; empty when it is not chunked (contiguous, scalar)
};

// Reads blocks of one dataset. Errors (missing file, missing dataset, an element type that is
// neither f32 nor f64) are tra::Error of kind BadInput naming the file and dataset.
class DatasetReader {
  public:
    DatasetReader(const std::string& path, const std::string& dataset);
    ~DatasetReader();
    DatasetReader(DatasetReader&&) noexcept;
    DatasetReader& operator=(DatasetReader&&) noexcept;

    const DatasetInfo& info() const;
    // The block of `extent` elements starting at `origin`, as a tile of the dataset's dtype.
    // A rank-0 (scalar) dataset is read with empty origin and extent: a Shape{} tile of one
    // element.
    Tile read_block(const Shape& origin, const Shape& extent) const;
    // The block of `bound` elements at `origin`, where `bound` may have fewer dims than the
    // dataset: the missing leading dims have extent 1. Returned with shape `bound`, so one call
    // reads a tile in either layout: read_tile(layout.origin(key), layout.bound).
    Tile read_tile(const Shape& origin, const Shape& bound) const;

  private:
    struct Handles;
    std::unique_ptr<Handles> h_;
};

// Creates one dataset in a file (the file is created if absent, else opened read-write) and
// writes blocks into it. Tiles must have the dataset's dtype. The chunk is clamped to the shape
// (and shrunk below HDF5's 4 GiB chunk limit); empty and scalar datasets are not chunked.
// Intermediate groups of a nested name ("/grp/C") are created. An existing dataset of that name
// is an error (BadInput): outputs go to fresh files (AtomicOutput), never overwrite in place.
class DatasetWriter {
  public:
    // Incremental: HDF5's defaults, a chunk gets its place in the file on its first write.
    // Reproducible (the distributed run's outputs): every chunk is placed at creation, in chunk
    // order, and the dataset has no timestamps, so the file's bytes depend on its contents alone,
    // not on which rank writes which tile when, nor on the second it was made; parallel HDF5 also
    // needs the chunks placed before ranks write them independently.
    // ReproducibleZeros: Reproducible, and every chunk written with zeros at creation (fill time
    // alloc), so a block no one writes (an absent tile of a sparse-derived relation's dense
    // output) reads as exact zeros, whatever the file's space held before; it costs a write of
    // the whole dataset, so only outputs with absent tiles take it.
    // Sparse: a chunk gets its place on its first write and an unwritten one none (it reads as
    // the fill value, set to 0, and chunk counts such as h5py's get_num_chunks leave it out);
    // no timestamps, as Reproducible.
    enum class Allocation { Incremental, Reproducible, ReproducibleZeros, Sparse };

    DatasetWriter(const std::string& path, const std::string& dataset, DType dtype,
                  const Shape& shape, const Shape& chunk,
                  Allocation allocation = Allocation::Incremental);
    ~DatasetWriter();
    DatasetWriter(DatasetWriter&&) noexcept;
    DatasetWriter& operator=(DatasetWriter&&) noexcept;

    // Opens a dataset another writer created (possibly another process, which closed it), to
    // write more blocks: how ranks write their tiles of one output file in turn. Errors (no
    // such file or dataset, a different shape) are BadInput naming the file and dataset.
    static DatasetWriter reopen(const std::string& path, const std::string& dataset, DType dtype,
                                const Shape& shape);

    // Writes `tile` as the block at `origin`. A tile of lower rank than the dataset fills a block
    // whose missing leading dims have extent 1 (a tile of a relation layout), so
    // write_block(layout.origin(key), tile) works in either layout.
    void write_block(const Shape& origin, const Tile& tile);
    // Flushes and closes; errors here are reported, unlike in the destructor.
    void close();

  private:
    DatasetWriter();
    struct Handles;
    std::unique_ptr<Handles> h_;
};

// Names of the datasets in a file (full paths such as "/A", "/grp/C"), recursive and sorted,
// for `tra diff X.h5`.
std::vector<std::string> list_datasets(const std::string& path);

}  // namespace tra::storage
