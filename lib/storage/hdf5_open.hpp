#pragma once
// Internal to lib/storage: opening tra's HDF5 files and datasets the same way everywhere, with
// errors (BadInput) that name the file and say what is there instead.
#include <hdf5.h>

#include <string>
#include <vector>

#include "storage/hdf5_handle.hpp"

namespace tra::storage::detail {

// Tolerates file systems without flock (Lustre, some NFS), where HDF5 1.10 would otherwise
// refuse to open anything; HDF5_USE_FILE_LOCKING still overrides this.
Hid access_plist();

// Opens an existing HDF5 file (H5F_ACC_RDONLY or H5F_ACC_RDWR); no such file, a folder, a file
// that is not HDF5 and a refusal are each their own message.
Hid open_file(const std::string& path, unsigned flags);

// Opens dataset `name` (absolute) of `file` (at `path`); a missing one lists what the file has.
Hid open_dataset(hid_t file, const std::string& path, const std::string& name);

// True when every link along `name` exists.
bool link_exists(hid_t file, const std::string& name);

// The datasets in `file` (full paths), recursive and sorted.
std::vector<std::string> datasets_in(hid_t file, const std::string& path);

}  // namespace tra::storage::detail
