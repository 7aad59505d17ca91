#pragma once
// Internal to lib/storage: the small conversions every HDF5 file of tra's makes the same way
// (names in messages, dataset paths, extents, element types).
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

inline hid_t memory_type(DType d) {
    return d == DType::F32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
}

}  // namespace tra::storage::detail
