#include "storage/checkpoint_file.hpp"

#include <hdf5.h>

#include <filesystem>
#include <vector>

#include "core/error.hpp"
#include "storage/chunk_presence.hpp"
#include "storage/hdf5_handle.hpp"
#include "storage/tensor_file.hpp"

namespace tra::storage {

namespace {

using detail::Hid;

constexpr const char* kIteration = "tra_checkpoint_iteration";
constexpr const char* kSites = "tra_checkpoint_sites";
constexpr const char* kPlan = "tra_checkpoint_plan";

[[noreturn]] void failed(const std::string& what) {
    throw Error("cannot " + what, {}, ErrorKind::Failed);
}

Hid open_file(const std::string& path, unsigned flags) {
    return detail::file_id(H5Fopen(path.c_str(), flags, H5P_DEFAULT));
}

// Whether `chunk` cuts `shape` into whole chunks (a chunk halved below HDF5's 4 GiB limit may
// not).
bool divides(const Shape& chunk, const Shape& shape) {
    for (std::size_t d = 0; d < shape.size(); ++d)
        if (chunk[d] <= 0 || shape[d] % chunk[d] != 0) return false;
    return true;
}

Hid attribute(hid_t id) {
    return {id, H5Aclose};
}

void write_int(hid_t file, const char* name, std::int64_t value) {
    Hid space = detail::space_id(H5Screate(H5S_SCALAR));
    Hid a =
        attribute(H5Acreate2(file, name, H5T_NATIVE_INT64, space.get(), H5P_DEFAULT, H5P_DEFAULT));
    if (!a || H5Awrite(a.get(), H5T_NATIVE_INT64, &value) < 0)
        failed(std::string("write the checkpoint attribute ") + name);
}

void write_text(hid_t file, const char* name, const std::string& value) {
    Hid type = detail::type_id(H5Tcopy(H5T_C_S1));
    H5Tset_size(type.get(), value.empty() ? 1 : value.size());
    Hid space = detail::space_id(H5Screate(H5S_SCALAR));
    Hid a = attribute(H5Acreate2(file, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
    const std::string padded = value.empty() ? std::string(1, '\0') : value;
    if (!a || H5Awrite(a.get(), type.get(), padded.data()) < 0)
        failed(std::string("write the checkpoint attribute ") + name);
}

// The attribute, or nullopt when the file has none of that name or type.
std::optional<std::int64_t> read_int(hid_t file, const char* name) {
    if (H5Aexists(file, name) <= 0) return std::nullopt;
    Hid a = attribute(H5Aopen(file, name, H5P_DEFAULT));
    std::int64_t value = 0;
    if (!a || H5Aread(a.get(), H5T_NATIVE_INT64, &value) < 0) return std::nullopt;
    return value;
}

std::optional<std::string> read_text(hid_t file, const char* name) {
    if (H5Aexists(file, name) <= 0) return std::nullopt;
    Hid a = attribute(H5Aopen(file, name, H5P_DEFAULT));
    Hid type = detail::type_id(a ? H5Aget_type(a.get()) : H5I_INVALID_HID);
    if (!type || H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) > 0)
        return std::nullopt;
    std::string value(H5Tget_size(type.get()), '\0');
    if (H5Aread(a.get(), type.get(), value.data()) < 0) return std::nullopt;
    return value.substr(0, value.find('\0'));
}

}  // namespace

std::string checkpoint_path(const std::string& dir) {
    return (std::filesystem::path(dir) / "checkpoint.h5").string();
}

std::string carry_dataset(const std::string& input) {
    return "/carry/" + input;
}

std::string observed_dataset(std::size_t output) {
    return "/observed/" + std::to_string(output);
}

void stamp_checkpoint(const std::string& path, const CheckpointStamp& stamp) {
    Hid file = open_file(path, H5F_ACC_RDWR);
    if (!file) failed("open the checkpoint " + path);
    write_int(file.get(), kIteration, stamp.iteration);
    write_int(file.get(), kSites, stamp.sites);
    write_text(file.get(), kPlan, stamp.plan);
    if (!file.close()) failed("close the checkpoint " + path);
}

CheckpointStamp read_checkpoint_stamp(const std::string& path) {
    auto not_one = [&](const std::string& why) -> Error {
        return Error("'" + path + "' is not a tra checkpoint (" + why + ")");
    };
    if (!std::filesystem::is_regular_file(path)) throw not_one("no such file");
    if (H5Fis_hdf5(path.c_str()) <= 0) throw not_one("not an HDF5 file");
    Hid file = open_file(path, H5F_ACC_RDONLY);
    if (!file) throw not_one("it cannot be opened");
    const auto iteration = read_int(file.get(), kIteration);
    const auto sites = read_int(file.get(), kSites);
    const auto plan = read_text(file.get(), kPlan);
    if (!iteration || !sites || !plan)
        throw not_one("its root group has no tra_checkpoint_* stamp");
    return CheckpointStamp{*iteration, *sites, *plan};
}

void copy_dataset_values(const std::string& from, const std::string& from_dataset,
                         const std::string& to, const std::string& to_dataset) {
    const DatasetReader reader(from, from_dataset);
    const DatasetInfo& info = reader.info();
    DatasetWriter writer = DatasetWriter::reopen(to, to_dataset, info.dtype, info.shape);
    // A sparse output's unwritten chunks must stay unwritten (a whole write would place them
    // all): when some are absent, only the allocated ones are copied, chunk by chunk.
    if (!info.chunk.empty() && divides(info.chunk, info.shape)) {
        const auto chunks = allocated_tiles(from, from_dataset, info.chunk);
        Shape grid;
        for (std::size_t d = 0; d < info.shape.size(); ++d)
            grid.push_back(info.shape[d] / info.chunk[d]);
        if (static_cast<std::int64_t>(chunks.size()) < grid.product()) {
            for (const Key& c : chunks) {
                Shape origin;
                for (std::size_t d = 0; d < c.size(); ++d) origin.push_back(c[d] * info.chunk[d]);
                writer.write_block(origin, reader.read_block(origin, info.chunk));
            }
            writer.close();
            return;
        }
    }
    const Shape origin(std::vector<std::int64_t>(info.shape.size(), 0));
    writer.write_block(origin, reader.read_block(origin, info.shape));
    writer.close();
}

void copy_dataset(const std::string& from, const std::string& from_dataset, const std::string& to,
                  const std::string& to_dataset) {
    Hid src = open_file(from, H5F_ACC_RDONLY);
    Hid dst = open_file(to, H5F_ACC_RDWR);
    Hid groups = detail::plist_id(H5Pcreate(H5P_LINK_CREATE));
    if (!src || !dst || !groups || H5Pset_create_intermediate_group(groups.get(), 1) < 0 ||
        H5Ocopy(src.get(), from_dataset.c_str(), dst.get(), to_dataset.c_str(), H5P_DEFAULT,
                groups.get()) < 0 ||
        !dst.close())
        failed("copy " + from + ":" + from_dataset + " to " + to + ":" + to_dataset);
}

}  // namespace tra::storage
