#include "storage/tensor_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "storage/hdf5_handle.hpp"
#include "storage/hdf5_names.hpp"
#include "storage/hdf5_open.hpp"

namespace tra::storage {

using detail::absolute_name;
using detail::access_plist;
using detail::block_extent;
using detail::block_fits;
using detail::hdims;
using detail::Hid;
using detail::in_quotes;
using detail::memory_type;
using detail::open_dataset;
using detail::open_file;

namespace {

// HDF5 limits a chunk to 4 GiB.
constexpr std::uint64_t kMaxChunkBytes = (std::uint64_t{1} << 32) - 1;

hid_t file_type(DType d) {
    return d == DType::F32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
}

// "int32", "uint8", "float16", "string": enough for a user to see what the file holds.
std::string describe_type(hid_t type) {
    const std::string bits = std::to_string(8 * H5Tget_size(type));
    switch (H5Tget_class(type)) {
        case H5T_INTEGER:
            return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + bits;
        case H5T_FLOAT:
            return "float" + bits;
        case H5T_STRING:
            return "string";
        case H5T_COMPOUND:
            return "compound";
        case H5T_ENUM:
            return "enum";
        case H5T_ARRAY:
            return "array";
        case H5T_BITFIELD:
            return "bitfield" + bits;
        default:
            return "non-numeric";
    }
}

// Checks that the block [origin, origin + extent) lies inside `shape`.
void check_block(const Shape& origin, const Shape& extent, const Shape& shape,
                 const std::string& name, const std::string& path) {
    if (!block_fits(origin, extent, shape))
        throw Error("block at " + origin.str() + " of extent " + extent.str() +
                    " does not fit dataset " + in_quotes(name) + " of shape " + shape.str() +
                    " in " + in_quotes(path));
}

// Selects the block in the file and describes the tile's buffer; a scalar dataset takes
// H5S_ALL because it has no hyperslabs.
struct Selection {
    Hid file_space;
    Hid mem_space;
    hid_t file() const { return file_space ? file_space.get() : H5S_ALL; }
    hid_t mem() const { return mem_space ? mem_space.get() : H5S_ALL; }
};

Selection select_block(hid_t dataset, const Shape& origin, const Shape& extent) {
    Selection s;
    if (extent.empty()) return s;
    s.file_space = detail::space_id(H5Dget_space(dataset));
    const auto start = hdims(origin);
    const auto count = hdims(extent);
    if (!s.file_space || H5Sselect_hyperslab(s.file_space.get(), H5S_SELECT_SET, start.data(),
                                             nullptr, count.data(), nullptr) < 0)
        throw Error("cannot select a block in an HDF5 dataset", {}, ErrorKind::Failed);
    s.mem_space =
        detail::space_id(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr));
    return s;
}

// Chunk dims for a dataset: the tile's block, clamped to the shape and halved along its largest
// dim until under HDF5's limit (a chunk is a storage detail; any size reads back the same).
std::vector<hsize_t> chunk_dims(const Shape& shape, const Shape& chunk, DType dtype) {
    std::vector<hsize_t> dims;
    std::uint64_t bytes = size_of(dtype);
    for (std::size_t i = 0; i < shape.size(); ++i) {
        dims.push_back(static_cast<hsize_t>(std::clamp<std::int64_t>(chunk[i], 1, shape[i])));
        bytes *= dims.back();
    }
    while (bytes > kMaxChunkBytes) {
        auto largest = std::max_element(dims.begin(), dims.end());
        bytes = bytes / *largest * ((*largest + 1) / 2);
        *largest = (*largest + 1) / 2;
    }
    return dims;
}

}  // namespace

// ---- DatasetReader ----

struct DatasetReader::Handles {
    std::string path;
    std::string name;
    Hid file;
    Hid dataset;
    DatasetInfo info;
};

DatasetReader::DatasetReader(const std::string& path, const std::string& dataset)
    : h_(std::make_unique<Handles>()) {
    detail::silence_hdf5_errors();
    h_->path = path;
    h_->name = absolute_name(dataset);
    h_->file = open_file(path, H5F_ACC_RDONLY);
    h_->dataset = open_dataset(h_->file.get(), path, h_->name);

    Hid type = detail::type_id(H5Dget_type(h_->dataset.get()));
    const bool is_float = type && H5Tget_class(type.get()) == H5T_FLOAT;
    const std::size_t size = type ? H5Tget_size(type.get()) : 0;
    if (is_float && size == 4)
        h_->info.dtype = DType::F32;
    else if (is_float && size == 8)
        h_->info.dtype = DType::F64;
    else
        throw Error("dataset " + in_quotes(h_->name) + " in " + in_quotes(path) +
                    " has element type " + (type ? describe_type(type.get()) : "unknown") +
                    ", tra reads f32 or f64");

    Hid space = detail::space_id(H5Dget_space(h_->dataset.get()));
    const int rank = space ? H5Sget_simple_extent_ndims(space.get()) : -1;
    if (rank < 0 || H5Sget_simple_extent_type(space.get()) == H5S_NULL)
        throw Error("dataset " + in_quotes(h_->name) + " in " + in_quotes(path) +
                    " holds no array");
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    for (auto d : dims) h_->info.shape.push_back(static_cast<std::int64_t>(d));

    Hid dcpl = detail::plist_id(H5Dget_create_plist(h_->dataset.get()));
    if (dcpl && H5Pget_layout(dcpl.get()) == H5D_CHUNKED) {
        std::vector<hsize_t> chunk(dims.size());
        H5Pget_chunk(dcpl.get(), rank, chunk.data());
        for (auto c : chunk) h_->info.chunk.push_back(static_cast<std::int64_t>(c));
    }
}

DatasetReader::~DatasetReader() = default;
DatasetReader::DatasetReader(DatasetReader&&) noexcept = default;
DatasetReader& DatasetReader::operator=(DatasetReader&&) noexcept = default;

const DatasetInfo& DatasetReader::info() const {
    return h_->info;
}

Tile DatasetReader::read_block(const Shape& origin, const Shape& extent) const {
    return read_tile(origin, extent);
}

Tile DatasetReader::read_tile(const Shape& origin, const Shape& bound) const {
    detail::silence_hdf5_errors();
    const Shape extent = block_extent(bound, h_->info.shape.size());
    check_block(origin, extent, h_->info.shape, h_->name, h_->path);
    Tile tile(h_->info.dtype, bound);
    if (tile.elements() == 0) return tile;
    Selection sel = select_block(h_->dataset.get(), origin, extent);
    if (H5Dread(h_->dataset.get(), memory_type(h_->info.dtype), sel.mem(), sel.file(), H5P_DEFAULT,
                tile.raw()) < 0)
        throw Error("cannot read the block at " + origin.str() + " of " + in_quotes(h_->name) +
                        " in " + in_quotes(h_->path),
                    {}, ErrorKind::Failed);
    return tile;
}

// ---- DatasetWriter ----

struct DatasetWriter::Handles {
    std::string path;
    std::string name;
    DType dtype = DType::F64;
    Shape shape;
    Hid file;
    Hid dataset;
};

DatasetWriter::DatasetWriter(const std::string& path, const std::string& dataset, DType dtype,
                             const Shape& shape, const Shape& chunk, Allocation allocation)
    : h_(std::make_unique<Handles>()) {
    detail::silence_hdf5_errors();
    h_->path = path;
    h_->name = absolute_name(dataset);
    h_->dtype = dtype;
    h_->shape = shape;
    if (chunk.size() != shape.size())
        throw Error("chunk " + chunk.str() + " does not match the shape " + shape.str() + " of " +
                    in_quotes(h_->name));

    std::error_code ec;
    if (std::filesystem::exists(path, ec)) {
        h_->file = open_file(path, H5F_ACC_RDWR);
    } else {
        Hid fapl = access_plist();
        h_->file = detail::file_id(H5Fcreate(path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get()));
        if (!h_->file) throw Error("cannot create HDF5 file " + in_quotes(path));
    }
    if (detail::link_exists(h_->file.get(), h_->name))
        throw Error("dataset " + in_quotes(h_->name) + " already exists in " + in_quotes(path));

    const auto dims = hdims(shape);
    Hid space = detail::space_id(
        shape.empty() ? H5Screate(H5S_SCALAR)
                      : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
    Hid lcpl = detail::plist_id(H5Pcreate(H5P_LINK_CREATE));
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    Hid dcpl = detail::plist_id(H5Pcreate(H5P_DATASET_CREATE));
    // Scalars cannot be chunked and a chunk needs at least one element per dim.
    if (!shape.empty() && shape.product() > 0) {
        const auto cdims = chunk_dims(shape, chunk, dtype);
        H5Pset_chunk(dcpl.get(), static_cast<int>(cdims.size()), cdims.data());
    }
    // HDF5's default fill is the value 0 written only if set (H5D_FILL_TIME_IFSET): early
    // allocation just reserves the space, which holds zeros only while the file never reused any.
    const double zero = 0;
    switch (allocation) {
        case Allocation::Incremental:
            break;
        case Allocation::ReproducibleZeros:
            H5Pset_fill_value(dcpl.get(), H5T_NATIVE_DOUBLE, &zero);
            H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_ALLOC);
            [[fallthrough]];
        case Allocation::Reproducible:
            H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY);
            H5Pset_obj_track_times(dcpl.get(), false);
            break;
        case Allocation::Sparse:
            // A chunked dataset's default allocation time is already incremental.
            H5Pset_fill_value(dcpl.get(), H5T_NATIVE_DOUBLE, &zero);
            H5Pset_obj_track_times(dcpl.get(), false);
            break;
    }
    h_->dataset = detail::dataset_id(H5Dcreate2(h_->file.get(), h_->name.c_str(), file_type(dtype),
                                                space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT));
    if (!h_->dataset)
        throw Error("cannot create dataset " + in_quotes(h_->name) + " of shape " + shape.str() +
                    " in " + in_quotes(path));
}

DatasetWriter::DatasetWriter() : h_(std::make_unique<Handles>()) {}

DatasetWriter DatasetWriter::reopen(const std::string& path, const std::string& dataset,
                                    DType dtype, const Shape& shape) {
    detail::silence_hdf5_errors();
    DatasetWriter w;
    w.h_->path = path;
    w.h_->name = absolute_name(dataset);
    w.h_->dtype = dtype;
    w.h_->shape = shape;
    w.h_->file = open_file(path, H5F_ACC_RDWR);
    w.h_->dataset = open_dataset(w.h_->file.get(), path, w.h_->name);
    Hid space = detail::space_id(H5Dget_space(w.h_->dataset.get()));
    const int rank = space ? H5Sget_simple_extent_ndims(space.get()) : -1;
    std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 0)));
    if (rank > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    if (rank < 0 || dims != hdims(shape))
        throw Error("dataset " + in_quotes(w.h_->name) + " in " + in_quotes(path) +
                    " does not have the shape " + shape.str() + " to write into");
    return w;
}

DatasetWriter::~DatasetWriter() = default;
DatasetWriter::DatasetWriter(DatasetWriter&&) noexcept = default;
DatasetWriter& DatasetWriter::operator=(DatasetWriter&&) noexcept = default;

void DatasetWriter::write_block(const Shape& origin, const Tile& tile) {
    detail::silence_hdf5_errors();
    if (!h_->dataset)
        throw Error(
            "dataset " + in_quotes(h_->name) + " in " + in_quotes(h_->path) + " is already closed",
            {}, ErrorKind::Failed);
    if (tile.dtype() != h_->dtype)
        throw Error("cannot write an " + name_of(tile.dtype()) + " tile into " +
                    name_of(h_->dtype) + " dataset " + in_quotes(h_->name) + " in " +
                    in_quotes(h_->path));
    const Shape extent = block_extent(tile.shape(), h_->shape.size());
    check_block(origin, extent, h_->shape, h_->name, h_->path);
    if (tile.elements() == 0) return;
    Selection sel = select_block(h_->dataset.get(), origin, extent);
    if (H5Dwrite(h_->dataset.get(), memory_type(h_->dtype), sel.mem(), sel.file(), H5P_DEFAULT,
                 tile.raw()) < 0)
        throw Error("cannot write the block at " + origin.str() + " of " + in_quotes(h_->name) +
                        " in " + in_quotes(h_->path),
                    {}, ErrorKind::Failed);
}

void DatasetWriter::close() {
    detail::silence_hdf5_errors();
    if (!h_) return;
    // Closing flushes HDF5's cached chunks and metadata; when a write(2) there fails (a full
    // disk, a quota), HDF5's file driver leaves its errno, which says why.
    errno = 0;
    const bool dataset_ok = h_->dataset.close();
    const bool file_ok = h_->file.close();
    const std::string why = errno ? std::string(": ") + std::strerror(errno) : "";
    if (!dataset_ok || !file_ok)
        throw Error(
            "cannot finish writing " + in_quotes(h_->name) + " in " + in_quotes(h_->path) + why, {},
            ErrorKind::Failed);
}

// ---- listing ----

std::vector<std::string> list_datasets(const std::string& path) {
    detail::silence_hdf5_errors();
    Hid file = open_file(path, H5F_ACC_RDONLY);
    return detail::datasets_in(file.get(), path);
}

}  // namespace tra::storage
