// Each library's line comes from the stage that links it (kernels: BLAS and CUDA, runtime: MPI,
// storage: HDF5); apps/ only lays them out.
#include "version.hpp"

#include "kernels/blas_info.hpp"
#include "runtime/mpi_info.hpp"
#include "storage/hdf5_info.hpp"
#include "tra_version.hpp"

namespace tra::cli {

std::string version_text() {
    std::string text = "tra " TRA_VERSION "\n";
    text += "commit " TRA_GIT_COMMIT "\n";
    text += "BLAS " + kernels::blas_description() + "\n";
    text += "MPI " + runtime::mpi_library_version() + "\n";
    text += "HDF5 " + storage::hdf5_library_version();
    if (const std::string cuda = kernels::cuda_description(); !cuda.empty()) {
        text += "\n" + cuda;
    }
    return text;
}

}  // namespace tra::cli
