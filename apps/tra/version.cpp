// Each library's line comes from the stage that links it (kernels: BLAS and CUDA, runtime: MPI,
// storage: HDF5); apps/ only lays them out.
#include "version.hpp"

#include "kernels/blas_info.hpp"
#include "runtime/mpi_info.hpp"
#include "storage/hdf5_info.hpp"
#include "tra_version.hpp"

namespace tra::cli {

VersionInfo version_info() {
    return {TRA_VERSION,
            TRA_GIT_COMMIT,
            kernels::blas_description(),
            runtime::mpi_library_version(),
            storage::hdf5_library_version(),
            kernels::cuda_description()};
}

std::string version_text() {
    const VersionInfo v = version_info();
    std::string text = "tra " + v.tra + "\n";
    text += "commit " + v.commit + "\n";
    text += "BLAS " + v.blas + "\n";
    text += "MPI " + v.mpi + "\n";
    text += "HDF5 " + v.hdf5;
    if (!v.cuda.empty()) text += "\n" + v.cuda;
    return text;
}

}  // namespace tra::cli
