#include "storage/hdf5_info.hpp"

#include <hdf5.h>

namespace tra::storage {

std::string hdf5_library_version() {
    unsigned major = 0, minor = 0, release = 0;
    if (H5get_libversion(&major, &minor, &release) < 0) return "unknown";
    std::string version =
        std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
    // H5_HAVE_PARALLEL is the header's word, which matches the library this build links.
#ifdef H5_HAVE_PARALLEL
    version += " (parallel)";
#else
    version += " (serial)";
#endif
    return version;
}

}  // namespace tra::storage
