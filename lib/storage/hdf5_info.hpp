#pragma once
// The HDF5 library tra reads and writes tiles with, for `tra --version`: a file written by a
// newer HDF5 may not open in an older one, and parallel HDF5 must match the MPI in use.
#include <string>

namespace tra::storage {

// "1.10.8 (parallel)": H5get_libversion's numbers, and whether the library was built with MPI.
std::string hdf5_library_version();

}  // namespace tra::storage
