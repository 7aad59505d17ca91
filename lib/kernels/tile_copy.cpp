#include "kernels/tile_copy.hpp"

#include <cstring>
#include <string>

namespace tra::kernels {

namespace {

// Elements before and after `dim` in row-major order: a tile is `outer` blocks of
// extent[dim] * inner contiguous elements.
std::int64_t outer_of(const Shape& s, std::size_t dim) {
    std::int64_t n = 1;
    for (std::size_t d = 0; d < dim; ++d) n *= s[d];
    return n;
}
std::int64_t inner_of(const Shape& s, std::size_t dim) {
    std::int64_t n = 1;
    for (std::size_t d = dim + 1; d < s.size(); ++d) n *= s[d];
    return n;
}

// `rows` rows of `row_bytes` from src (rows `src_pitch` apart) to dst (`dst_pitch` apart), in
// host memory or, for device tiles, as one strided copy on the GPU.
void copy_rows(Residence where, char* dst, std::size_t dst_pitch, const char* src,
               std::size_t src_pitch, std::size_t row_bytes, std::int64_t rows) {
    if (row_bytes == 0 || rows == 0) return;
    if (where == Residence::Device) {
        device_memory().copy_rows(dst, dst_pitch, src, src_pitch, row_bytes,
                                  static_cast<std::size_t>(rows));
        return;
    }
    for (std::int64_t r = 0; r < rows; ++r)
        std::memcpy(dst + r * dst_pitch, src + r * src_pitch, row_bytes);
}

char* bytes_of(const Tile& t) {
    return static_cast<char*>(t.address());
}

}  // namespace

Tile split_tile(const Tile& tile, std::size_t dim, std::int64_t size, std::int64_t index) {
    const Shape& shape = tile.shape();
    if (dim >= shape.size())
        throw Error("tile: dimension " + std::to_string(dim) + " is out of range for a tile of " +
                    "shape " + shape.str());
    if (size <= 0 || shape[dim] % size != 0)
        throw Error("tile: piece size " + std::to_string(size) + " does not divide extent " +
                    std::to_string(shape[dim]) + " of dimension " + std::to_string(dim));
    if (index < 0 || index >= shape[dim] / size)
        throw Error("tile: piece " + std::to_string(index) + " does not exist; extent " +
                    std::to_string(shape[dim]) + " cut into pieces of " + std::to_string(size) +
                    " has " + std::to_string(shape[dim] / size));
    Shape out_shape = shape;
    out_shape[dim] = size;
    Tile out(tile.dtype(), out_shape, tile.residence());
    std::size_t elem = size_of(tile.dtype());
    std::int64_t outer = outer_of(shape, dim), inner = inner_of(shape, dim);
    std::size_t chunk = static_cast<std::size_t>(size * inner) * elem;
    copy_rows(tile.residence(), bytes_of(out), chunk,
              bytes_of(tile) + static_cast<std::size_t>(index * size * inner) * elem,
              static_cast<std::size_t>(shape[dim] * inner) * elem, chunk, outer);
    return out;
}

Tile concat_tiles(std::span<const Tile* const> pieces, std::size_t dim) {
    if (pieces.empty()) throw Error("concat: no pieces to join");
    for (const Tile* p : pieces)
        if (!p) throw Error("concat: missing piece");
    const Tile& first = *pieces[0];
    if (dim >= first.rank())
        throw Error("concat: dimension " + std::to_string(dim) + " is out of range for tiles " +
                    "of shape " + first.shape().str());
    Shape out_shape = first.shape();
    out_shape[dim] = 0;
    for (const Tile* p : pieces) {
        if (p->residence() != first.residence())
            throw Error("concat: some pieces live on the GPU and some in host memory", {},
                        ErrorKind::Failed);
        if (p->dtype() != first.dtype())
            throw Error("concat: pieces have different dtypes: " + name_of(first.dtype()) +
                        " and " + name_of(p->dtype()));
        Shape s = p->shape();
        if (s.size() != first.rank())
            throw Error("concat: pieces have different ranks: " + first.shape().str() + " and " +
                        s.str());
        s[dim] = 0;
        Shape f = first.shape();
        f[dim] = 0;
        if (s != f)
            throw Error("concat: pieces " + first.shape().str() + " and " + p->shape().str() +
                        " differ outside dimension " + std::to_string(dim));
        out_shape[dim] += p->shape()[dim];
    }
    Tile out(first.dtype(), out_shape, first.residence());
    std::size_t elem = size_of(first.dtype());
    std::int64_t outer = outer_of(out_shape, dim), inner = inner_of(out_shape, dim);
    std::size_t out_pitch = static_cast<std::size_t>(out_shape[dim] * inner) * elem;
    // Each output block interleaves one block of every piece, in order: piece by piece, that
    // is one strided copy per piece.
    std::size_t at = 0;
    for (const Tile* p : pieces) {
        std::size_t chunk = static_cast<std::size_t>(p->shape()[dim] * inner) * elem;
        copy_rows(first.residence(), bytes_of(out) + at, out_pitch, bytes_of(*p), chunk, chunk,
                  outer);
        at += chunk;
    }
    return out;
}

}  // namespace tra::kernels
