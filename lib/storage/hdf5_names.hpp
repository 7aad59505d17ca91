#pragma once
// Internal to lib/storage: the small conversions every HDF5 file of tra's makes the same way
// (names in messages, dataset paths, extents and blocks, element types).
#include <hdf5.h>

#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/index_vector.hpp"

namespace tra::storage::detail {

inline std::string in_quotes(const std::string& s) {
    return "'" + s + "'";
}

// Users may write "B" or "/B"; messages and listings always use the absolute form.
inline std::string absolute_name(const std::string& dataset) {
    return !dataset.empty() && dataset.front() == '/' ? dataset : "/" + dataset;
}

inline std::vector<hsize_t> hdims(const Shape& s) {
    return std::vector<hsize_t>(s.begin(), s.end());
}

// The dataset's extent for a tile of shape `bound`: leading 1s up to the dataset's rank (a tile
// of a relation layout).
inline Shape block_extent(const Shape& bound, std::size_t rank) {
    Shape extent;
    for (std::size_t i = bound.size(); i < rank; ++i) extent.push_back(1);
    for (auto b : bound) extent.push_back(b);
    return extent;
}

// Whether the block [origin, origin + extent) lies inside `shape`.
inline bool block_fits(const Shape& origin, const Shape& extent, const Shape& shape) {
    bool ok = origin.size() == shape.size() && extent.size() == shape.size();
    for (std::size_t i = 0; ok && i < shape.size(); ++i)
        ok = origin[i] >= 0 && extent[i] >= 0 && origin[i] + extent[i] <= shape[i];
    return ok;
}

inline hid_t memory_type(DType d) {
    return d == DType::F32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
}

}  // namespace tra::storage::detail
