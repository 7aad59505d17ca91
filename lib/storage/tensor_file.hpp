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
    Tile read_block(const Shape& origin, const Shape& extent) const;

private:
    struct Handles;
    std::unique_ptr<Handles> h_;
};

// Creates one dataset in a file (the file is created if absent, else opened read-write) and
// writes blocks into it. Tiles must have the dataset's dtype.
class DatasetWriter {
public:
    DatasetWriter(const std::string& path, const std::string& dataset, DType dtype,
                  const Shape& shape, const Shape& chunk);
    ~DatasetWriter();
    DatasetWriter(DatasetWriter&&) noexcept;
    DatasetWriter& operator=(DatasetWriter&&) noexcept;

    void write_block(const Shape& origin, const Tile& tile);
    // Flushes and closes; errors here are reported, unlike in the destructor.
    void close();

private:
    struct Handles;
    std::unique_ptr<Handles> h_;
};

// Names of the datasets in a file (full paths such as "/A"), for `tra diff X.h5`.
std::vector<std::string> list_datasets(const std::string& path);

}  // namespace tra::storage
