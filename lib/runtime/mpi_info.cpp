#include "runtime/mpi_info.hpp"

#include <mpi.h>

namespace tra::runtime {

std::string mpi_library_version() {
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    if (MPI_Get_library_version(text, &length) != MPI_SUCCESS) return "unknown";
    std::string version(text, static_cast<std::size_t>(length));
    // Open MPI appends its package and release date on one line; MPICH prints several lines of
    // configure options, which are too long for a version line.
    if (const auto end = version.find('\n'); end != std::string::npos) version.resize(end);
    while (!version.empty() && (version.back() == ' ' || version.back() == '\0'))
        version.pop_back();
    return version;
}

}  // namespace tra::runtime
