#pragma once
// What `tra --version` prints: the first line "tra X.Y.Z" (what scripts and help2man parse),
// then the commit and each library tra was built with, as that library reports itself. The run
// report's provenance (run_provenance.cpp) records the same pieces, from version_info().
#include <string>

namespace tra::cli {

struct VersionInfo {
    std::string tra, commit;      // "0.1.0", the git commit tra was built from
    std::string blas, mpi, hdf5;  // each library's own description
    std::string cuda;             // empty unless a -DTRA_CUDA=ON build
};

VersionInfo version_info();

std::string version_text();

}  // namespace tra::cli
