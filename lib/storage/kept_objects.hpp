#pragma once
// What `tra run --force` keeps of an output file it replaces: every group, dataset, link and
// attribute of the old file except the datasets the workflow writes (docs/reliability.md,
// "Nothing lost"). HDF5 files often hold more than one tool's results; replacing the whole file
// would silently delete the others.
#include <string>
#include <vector>

namespace tra::storage {

// Creates the HDF5 file `to` (which must not exist) holding copies (H5Ocopy) of every object of
// the HDF5 file `from` except the datasets named in `replaced` (absolute, "/grp/C"): groups on
// the way to a replaced dataset are recreated with their attributes, everything else is copied
// whole. A file that is not HDF5 keeps nothing and creates nothing. Errors (BadInput) name the
// file: an object that is in the way of a replaced dataset (a dataset "/grp" where "/grp/C" is
// written) or a copy HDF5 refuses.
void copy_kept_objects(const std::string& from, const std::string& to,
                       const std::vector<std::string>& replaced);

}  // namespace tra::storage
