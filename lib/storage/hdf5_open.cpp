#include "storage/hdf5_open.hpp"

#include <algorithm>
#include <filesystem>

#include "core/error.hpp"
#include "storage/hdf5_names.hpp"

namespace tra::storage::detail {

namespace {

herr_t collect_dataset(hid_t, const char* name, const H5O_info_t* info, void* out) {
    if (info->type == H5O_TYPE_DATASET)
        static_cast<std::vector<std::string>*>(out)->push_back(absolute_name(name));
    return 0;
}

std::string missing_dataset_message(hid_t file, const std::string& path, const std::string& name) {
    if (link_exists(file, name))
        return in_quotes(name) + " in " + in_quotes(path) + " is not a dataset";
    std::string has;
    for (const auto& d : datasets_in(file, path)) has += (has.empty() ? "" : ", ") + d;
    return "no dataset " + in_quotes(name) + " in " + in_quotes(path) +
           (has.empty() ? " (it has no datasets)" : " (it has: " + has + ")");
}

}  // namespace

Hid access_plist() {
    Hid fapl = plist_id(H5Pcreate(H5P_FILE_ACCESS));
    H5Pset_file_locking(fapl.get(), true, true);
    return fapl;
}

Hid open_file(const std::string& path, unsigned flags) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw Error("cannot open HDF5 file " + in_quotes(path) + ": no such file");
    if (std::filesystem::is_directory(path, ec))
        throw Error("cannot open HDF5 file " + in_quotes(path) + ": it is a folder");
    if (H5Fis_hdf5(path.c_str()) <= 0)
        throw Error("cannot open HDF5 file " + in_quotes(path) + ": not an HDF5 file");
    Hid fapl = access_plist();
    Hid file = file_id(H5Fopen(path.c_str(), flags, fapl.get()));
    if (!file) {
        const char* how = flags == H5F_ACC_RDONLY ? "" : " for writing";
        throw Error("cannot open HDF5 file " + in_quotes(path) + how);
    }
    return file;
}

Hid open_dataset(hid_t file, const std::string& path, const std::string& name) {
    Hid dataset = dataset_id(H5Dopen2(file, name.c_str(), H5P_DEFAULT));
    if (!dataset) throw Error(missing_dataset_message(file, path, name));
    return dataset;
}

// H5Lexists alone fails rather than answering "no" when an intermediate group is missing, so
// walk the path one component at a time.
bool link_exists(hid_t file, const std::string& name) {
    std::size_t pos = 0;
    while (pos != std::string::npos) {
        pos = name.find('/', pos + 1);
        const std::string prefix = name.substr(0, pos);
        if (prefix.size() <= 1) continue;
        if (H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    }
    return true;
}

std::vector<std::string> datasets_in(hid_t file, const std::string& path) {
    std::vector<std::string> names;
    if (H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_NATIVE, collect_dataset, &names, H5O_INFO_BASIC) < 0)
        throw Error("cannot list the datasets in " + in_quotes(path));
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace tra::storage::detail
