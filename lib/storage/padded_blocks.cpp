#include "storage/padded_blocks.hpp"

#include <algorithm>
#include <cstring>

#include "core/error.hpp"
#include "storage/hdf5_names.hpp"

namespace tra::storage {

namespace {

// The extent of the part of a block of `bound` at `origin` that lies inside `shape`.
Shape inside_extent(const Shape& origin, const Shape& bound, const Shape& shape) {
    Shape inside(shape.size());
    for (std::size_t d = 0; d < shape.size(); ++d) {
        if (origin[d] >= shape[d])
            throw Error("tile at " + origin.str() + " lies wholly outside the dataset of shape " +
                        shape.str());
        inside[d] = std::min(bound[d], shape[d] - origin[d]);
    }
    return inside;
}

}  // namespace

Tile read_padded_block(const DatasetReader& reader, const Shape& origin, const Shape& bound) {
    const Shape& shape = reader.info().shape;
    if (bound.size() != shape.size() || detail::block_fits(origin, bound, shape))
        return reader.read_tile(origin, bound);
    Tile tile(reader.info().dtype, bound);  // zeros
    copy_corner(reader.read_block(origin, inside_extent(origin, bound, shape)), tile);
    return tile;
}

Tile cropped_block(const Tile& tile, const Shape& origin, const Shape& shape) {
    Tile out = Tile::uninitialized(tile.dtype(), inside_extent(origin, tile.shape(), shape));
    copy_corner(tile, out);
    return out;
}

void copy_corner(const Tile& from, Tile& to) {
    const Shape& a = from.shape();
    const Shape& b = to.shape();
    if (from.dtype() != to.dtype() || a.size() != b.size())
        throw Error("internal: copying the corner of a " + a.str() + " tile into a " + b.str() +
                        " tile of another dtype or rank",
                    {}, ErrorKind::Failed);
    const std::size_t rank = a.size();
    Shape common(rank);
    for (std::size_t d = 0; d < rank; ++d) common[d] = std::min(a[d], b[d]);
    if (common.product() == 0) return;
    if (rank == 0) {
        std::memcpy(to.raw(), from.raw(), size_of(from.dtype()));
        return;
    }
    // Row by row along the last dimension: each row is contiguous in both tiles.
    const std::size_t element = size_of(from.dtype());
    const auto row = static_cast<std::size_t>(common[rank - 1]) * element;
    const auto* src = static_cast<const unsigned char*>(from.raw());
    auto* dst = static_cast<unsigned char*>(to.raw());
    Shape at(rank);
    do {
        std::memcpy(dst + static_cast<std::size_t>(row_major_offset(at, b)) * element,
                    src + static_cast<std::size_t>(row_major_offset(at, a)) * element, row);
        at[rank - 1] = common[rank - 1] - 1;  // next_in_box then moves to the next row
    } while (next_in_box(at, common));
}

}  // namespace tra::storage
