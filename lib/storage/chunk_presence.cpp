#include "storage/chunk_presence.hpp"

#include <set>

#include "core/error.hpp"
#include "storage/hdf5_handle.hpp"

namespace tra::storage {

namespace {

[[noreturn]] void refuse(const std::string& where, const std::string& why) {
    throw Error(where + ": " + why, {}, ErrorKind::BadInput);
}

// Every tile key whose tile overlaps the chunk at `offset` (element coordinates).
void add_overlapped(std::set<Key>& keys, const std::vector<hsize_t>& offset,
                    const std::vector<hsize_t>& chunk, const std::vector<hsize_t>& dims,
                    const Shape& tile) {
    const std::size_t rank = offset.size();
    Key first(rank), last(rank);
    for (std::size_t d = 0; d < rank; ++d) {
        const hsize_t end = std::min(offset[d] + chunk[d], dims[d]);  // edge chunks are clipped
        first[d] = static_cast<std::int64_t>(offset[d]) / tile[d];
        last[d] = static_cast<std::int64_t>(end - 1) / tile[d];
    }
    Key k = first;
    for (;;) {
        keys.insert(k);
        std::size_t d = rank;
        while (d > 0 && k[d - 1] == last[d - 1]) k[d - 1] = first[d - 1], --d;
        if (d == 0) return;
        ++k[d - 1];
    }
}

}  // namespace

std::vector<Key> allocated_tiles(const std::string& path, const std::string& dataset,
                                 const Shape& tile) {
    using namespace detail;
    silence_hdf5_errors();
    const std::string where = path + ":" + dataset;
    Hid file = file_id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    if (!file) refuse(where, "cannot open the file");
    Hid set = dataset_id(H5Dopen2(file.get(), dataset.c_str(), H5P_DEFAULT));
    if (!set) refuse(where, "no such dataset");
    Hid space = space_id(H5Dget_space(set.get()));
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 0 || static_cast<std::size_t>(rank) != tile.size())
        refuse(where, "has " + std::to_string(rank) + " dimensions, the tile " +
                          std::to_string(tile.size()));
    std::vector<hsize_t> dims(rank), chunk(rank);
    H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    for (int d = 0; d < rank; ++d)
        if (tile[d] <= 0 || static_cast<std::int64_t>(dims[d]) % tile[d] != 0)
            refuse(where, "the tile does not divide the shape");
    Hid dcpl = plist_id(H5Dget_create_plist(set.get()));
    if (H5Pget_layout(dcpl.get()) != H5D_CHUNKED)
        refuse(where,
               "is not chunked: `sparse: true` needs a chunked dataset, whose unwritten "
               "chunks are absent");
    H5Pget_chunk(dcpl.get(), rank, chunk.data());
    hsize_t count = 0;
    if (H5Dget_num_chunks(set.get(), space.get(), &count) < 0)
        refuse(where, "cannot count its allocated chunks");
    std::set<Key> keys;
    std::vector<hsize_t> offset(rank);
    for (hsize_t i = 0; i < count; ++i) {
        unsigned filter_mask = 0;
        haddr_t address = 0;
        hsize_t size = 0;
        if (H5Dget_chunk_info(set.get(), space.get(), i, offset.data(), &filter_mask, &address,
                              &size) < 0)
            refuse(where, "cannot read where chunk " + std::to_string(i) + " is");
        add_overlapped(keys, offset, chunk, dims, tile);
    }
    return {keys.begin(), keys.end()};
}

}  // namespace tra::storage
