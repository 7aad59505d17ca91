#include "storage/collective_writer.hpp"

#if TRA_PARALLEL_HDF5

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "core/error.hpp"
#include "storage/hdf5_handle.hpp"
#include "storage/hdf5_names.hpp"

namespace tra::storage {

using detail::absolute_name;
using detail::block_extent;
using detail::block_fits;
using detail::hdims;
using detail::Hid;
using detail::in_quotes;
using detail::memory_type;

namespace {

// The lowest rank whose `failed` is set, or -1: every rank learns it in one MPI_Allreduce.
int lowest_failed(MPI_Comm comm, bool failed) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mine = failed ? rank : size, lowest = size;
    MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, comm);
    return lowest == size ? -1 : lowest;
}

// Throws on every rank when any rank failed: the failing rank its own message, the others one
// that names it (the runtime's agreement then prints the lowest failing rank's message).
void throw_if_any_failed(MPI_Comm comm, const std::string& my_error, ErrorKind kind,
                         const std::string& what) {
    const int lowest = lowest_failed(comm, !my_error.empty());
    if (lowest < 0) return;
    if (!my_error.empty()) throw Error(my_error, {}, kind);
    throw Error("rank " + std::to_string(lowest) + " failed " + what, {}, kind);
}

}  // namespace

struct ParallelFile::Handle {
    MPI_Comm comm = MPI_COMM_NULL;
    std::string path;
    Hid file;
};

ParallelFile::ParallelFile(MPI_Comm comm, const std::string& path)
    : h_(std::make_unique<Handle>()) {
    detail::silence_hdf5_errors();
    h_->comm = comm;
    h_->path = path;
    // The same call on every rank (H5Fopen is collective on an MPI-IO file), so the ranks
    // succeed or fail together; the agreement below only settles the message.
    Hid fapl = detail::plist_id(H5Pcreate(H5P_FILE_ACCESS));
    H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL);
    // As the serial writer: file systems without flock must not refuse the file.
    H5Pset_file_locking(fapl.get(), true, true);
    h_->file = detail::file_id(H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl.get()));
    std::string error;
    if (!h_->file) error = "cannot open HDF5 file " + in_quotes(path) + " for writing";
    throw_if_any_failed(comm, error, ErrorKind::BadInput, "to open " + in_quotes(path));
}

ParallelFile::~ParallelFile() = default;

const std::string& ParallelFile::path() const {
    return h_->path;
}

void ParallelFile::close() {
    detail::silence_hdf5_errors();
    if (!h_->file) return;
    errno = 0;
    const bool ok = h_->file.close();
    const std::string why = errno ? std::string(": ") + std::strerror(errno) : "";
    std::string error;
    if (!ok) error = "cannot finish writing " + in_quotes(h_->path) + why;
    throw_if_any_failed(h_->comm, error, ErrorKind::Failed,
                        "to finish writing " + in_quotes(h_->path));
}

struct CollectiveWriter::Handles {
    MPI_Comm comm = MPI_COMM_NULL;
    std::string path;
    std::string name;
    DType dtype = DType::F64;
    Shape shape;
    Transfer transfer = Transfer::Collective;
    Hid dataset;
    Hid transfer_plist;
};

CollectiveWriter::CollectiveWriter(ParallelFile& file, const std::string& dataset, DType dtype,
                                   const Shape& shape, Transfer transfer)
    : h_(std::make_unique<Handles>()) {
    detail::silence_hdf5_errors();
    h_->comm = file.h_->comm;
    h_->path = file.path();
    h_->name = absolute_name(dataset);
    h_->dtype = dtype;
    h_->shape = shape;
    h_->transfer = transfer;
    const std::string& path = h_->path;
    const MPI_Comm comm = h_->comm;
    std::string error;

    // H5Dopen is collective on an MPI-IO file, as H5Fopen.
    h_->dataset = detail::dataset_id(H5Dopen2(file.h_->file.get(), h_->name.c_str(), H5P_DEFAULT));
    if (!h_->dataset) {
        error = "no dataset " + in_quotes(h_->name) + " in " + in_quotes(path);
    } else {
        Hid space = detail::space_id(H5Dget_space(h_->dataset.get()));
        const int rank = space ? H5Sget_simple_extent_ndims(space.get()) : -1;
        std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 0)));
        if (rank > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
        if (rank < 0 || dims != hdims(shape))
            error = "dataset " + in_quotes(h_->name) + " in " + in_quotes(path) +
                    " does not have the shape " + shape.str() + " to write into";
    }
    throw_if_any_failed(comm, error, ErrorKind::BadInput, "to open " + in_quotes(h_->name));

    h_->transfer_plist = detail::plist_id(H5Pcreate(H5P_DATASET_XFER));
    H5Pset_dxpl_mpio(h_->transfer_plist.get(), transfer == Transfer::Collective
                                                   ? H5FD_MPIO_COLLECTIVE
                                                   : H5FD_MPIO_INDEPENDENT);
}

CollectiveWriter::~CollectiveWriter() = default;

void CollectiveWriter::write(std::size_t count, const BlockAt& block_at) {
    detail::silence_hdf5_errors();
    // Collective transfers need every rank in every H5Dwrite: the ranks agree on the number of
    // rounds, and a rank out of blocks (or that failed) takes part with an empty selection.
    std::size_t rounds = count;
    if (h_->transfer == Transfer::Collective) {
        unsigned long mine = count, most = 0;
        MPI_Allreduce(&mine, &most, 1, MPI_UNSIGNED_LONG, MPI_MAX, h_->comm);
        rounds = most;
    }
    std::string error;
    Tile host;
    for (std::size_t i = 0; i < rounds; ++i) {
        Shape origin;
        const Tile* tile = nullptr;
        if (i < count && error.empty()) {
            try {
                tile = &block_at(i, origin, host);
            } catch (const std::exception& e) {
                error = e.what();
            }
        }
        Hid file_space = detail::space_id(H5Dget_space(h_->dataset.get()));
        Hid mem_space;
        if (tile && tile->elements() > 0) {
            const Shape extent = block_extent(tile->shape(), h_->shape.size());
            if (tile->dtype() != h_->dtype || !block_fits(origin, extent, h_->shape)) {
                error = "block at " + origin.str() + " of extent " + extent.str() +
                        " does not fit dataset " + in_quotes(h_->name) + " of shape " +
                        h_->shape.str() + " in " + in_quotes(h_->path);
                tile = nullptr;
            } else if (!extent.empty()) {
                const auto start = hdims(origin), size = hdims(extent);
                H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr,
                                    size.data(), nullptr);
                mem_space = detail::space_id(
                    H5Screate_simple(static_cast<int>(size.size()), size.data(), nullptr));
            } else {
                mem_space = detail::space_id(H5Screate(H5S_SCALAR));
            }
        } else {
            tile = nullptr;
        }
        if (!tile) {
            if (h_->transfer == Transfer::Independent) continue;
            H5Sselect_none(file_space.get());
            mem_space = detail::space_id(H5Scopy(file_space.get()));
        }
        // An empty selection still needs a buffer pointer; nothing is read from it.
        static const double nothing = 0;
        const void* data = tile ? tile->raw() : &nothing;
        if (H5Dwrite(h_->dataset.get(), memory_type(h_->dtype), mem_space.get(), file_space.get(),
                     h_->transfer_plist.get(), data) < 0 &&
            error.empty())
            error = "cannot write the block at " + origin.str() + " of " + in_quotes(h_->name) +
                    " in " + in_quotes(h_->path);
    }
    throw_if_any_failed(h_->comm, error, ErrorKind::Failed,
                        "to write " + in_quotes(h_->name) + " in " + in_quotes(h_->path));
}

void CollectiveWriter::close() {
    detail::silence_hdf5_errors();
    if (!h_->dataset) return;
    const bool ok = h_->dataset.close();
    std::string error;
    if (!ok) error = "cannot finish writing " + in_quotes(h_->name) + " in " + in_quotes(h_->path);
    throw_if_any_failed(h_->comm, error, ErrorKind::Failed,
                        "to finish writing " + in_quotes(h_->name) + " in " + in_quotes(h_->path));
}

}  // namespace tra::storage

#endif  // TRA_PARALLEL_HDF5
