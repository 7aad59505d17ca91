#pragma once
// Which tiles of a chunked HDF5 dataset hold data (`sparse: true` inputs): HDF5 allocates a
// chunk on its first write (h5py, and tra's own sparse outputs, write only the non-zero ones),
// so a tile is present when any chunk it overlaps is allocated, and absent (zeros) otherwise.
#include <string>
#include <vector>

#include "core/index_vector.hpp"

namespace tra::storage {

// The keys, ascending (row-major), of the tiles of `tile` elements of dataset `dataset` in
// `path` that overlap an allocated chunk. Errors are BadInput naming the file and dataset: no
// such file or dataset, a dataset that is not chunked (contiguous or compact: every element is
// stored, so nothing is absent), a tile that does not divide the shape.
std::vector<Key> allocated_tiles(const std::string& path, const std::string& dataset,
                                 const Shape& tile);

}  // namespace tra::storage
