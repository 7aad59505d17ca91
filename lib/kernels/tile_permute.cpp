// The permute walks the output in order and reads the input at strides. Where the output's
// innermost dimension is also the input's, each step copies a contiguous run; otherwise the two
// innermost dimensions (the input's and the output's) are transposed in square blocks through
// an L1-sized buffer.
#include "kernels/tile_permute.hpp"

#include <algorithm>
#include <vector>

#include "core/error.hpp"

namespace tra::kernels {

namespace {

constexpr std::int64_t kBlock = 32;  // 32 x 32 doubles = 8 KiB each side

// One dimension of the walk, in output order: its extent and its strides in elements.
struct Dim {
    std::int64_t extent, from, to;
};

// The output's dimensions with their input strides, without extent-1 dimensions and with
// neighbours that are neighbours in the input too merged into one, so the walk has few levels.
std::vector<Dim> walk_dims(const Shape& shape, std::span<const std::size_t> perm) {
    const std::size_t rank = shape.size();
    if (perm.size() != rank) throw Error("permute: perm has the wrong rank");
    std::vector<std::int64_t> in_stride(rank, 1);
    for (std::size_t d = rank; d-- > 1;) in_stride[d - 1] = in_stride[d] * shape[d];
    std::vector<Dim> dims(rank);
    std::vector<bool> seen(rank, false);
    for (std::size_t d = 0; d < rank; ++d) {
        if (perm[d] >= rank || seen[perm[d]]) throw Error("permute: perm is no permutation");
        seen[perm[d]] = true;
        dims[d] = {shape[perm[d]], in_stride[perm[d]], 0};
    }
    std::int64_t s = 1;
    for (std::size_t d = rank; d-- > 0;) {
        dims[d].to = s;
        s *= dims[d].extent;
    }
    std::vector<Dim> merged;
    for (const Dim& d : dims) {
        if (d.extent == 1) continue;
        if (!merged.empty() && merged.back().from == d.from * d.extent) {
            merged.back() = {merged.back().extent * d.extent, d.from, d.to};
            continue;
        }
        merged.push_back(d);
    }
    return merged;
}

// Calls f(from, to) with the offsets of every index of `outer` (an odometer).
template <class F>
void for_each_offset(const std::vector<Dim>& outer, F f) {
    std::vector<std::int64_t> idx(outer.size(), 0);
    std::int64_t from = 0, to = 0;
    for (;;) {
        f(from, to);
        std::size_t d = outer.size();
        for (; d-- > 0;) {
            from += outer[d].from, to += outer[d].to;
            if (++idx[d] < outer[d].extent) break;
            from -= outer[d].from * idx[d], to -= outer[d].to * idx[d];
            idx[d] = 0;
        }
        if (d == static_cast<std::size_t>(-1)) return;
    }
}

template <class T>
inline void put(T& dst, T v, bool accumulate) {
    dst = accumulate ? dst + v : v;
}

}  // namespace

template <class T>
void permute(const T* in, const Shape& shape, std::span<const std::size_t> perm, T* out,
             bool accumulate) {
    std::vector<Dim> dims = walk_dims(shape, perm);
    if (shape.product() == 0) return;
    if (dims.empty()) {  // one element
        put(out[0], in[0], accumulate);
        return;
    }
    const Dim inner = dims.back();  // contiguous in the output
    if (inner.from == 1) {          // and in the input: copy runs
        dims.pop_back();
        for_each_offset(dims, [&](std::int64_t from, std::int64_t to) {
            const T* src = in + from;
            T* dst = out + to;
            if (accumulate)
                for (std::int64_t i = 0; i < inner.extent; ++i) dst[i] += src[i];
            else
                std::copy(src, src + inner.extent, dst);
        });
        return;
    }
    // The input's contiguous dimension p is another one: move square blocks of (p, inner)
    // through a small buffer, reading whole input rows (along p) into it and writing whole output
    // rows (along inner) out of it, so every cache line is used in one burst and power-of-two
    // strides (cache-set conflicts between the rows of a block) do not matter.
    const auto p_at =
        std::find_if(dims.begin(), dims.end(), [](const Dim& d) { return d.from == 1; });
    const Dim p = *p_at;
    dims.erase(p_at);
    dims.pop_back();
    T buffer[kBlock * kBlock];
    for_each_offset(dims, [&](std::int64_t from, std::int64_t to) {
        for (std::int64_t p0 = 0; p0 < p.extent; p0 += kBlock)
            for (std::int64_t q0 = 0; q0 < inner.extent; q0 += kBlock) {
                const std::int64_t np = std::min(kBlock, p.extent - p0);
                const std::int64_t nq = std::min(kBlock, inner.extent - q0);
                for (std::int64_t j = 0; j < nq; ++j) {
                    const T* src = in + from + (q0 + j) * inner.from + p0;
                    std::copy(src, src + np, buffer + j * kBlock);
                }
                for (std::int64_t i = 0; i < np; ++i) {
                    T* dst = out + to + (p0 + i) * p.to + q0;
                    if (accumulate)
                        for (std::int64_t j = 0; j < nq; ++j) dst[j] += buffer[j * kBlock + i];
                    else
                        for (std::int64_t j = 0; j < nq; ++j) dst[j] = buffer[j * kBlock + i];
                }
            }
    });
}

template void permute<float>(const float*, const Shape&, std::span<const std::size_t>, float*,
                             bool);
template void permute<double>(const double*, const Shape&, std::span<const std::size_t>, double*,
                              bool);

Tile permute_tile(const Tile& tile, std::span<const std::size_t> perm) {
    if (perm.size() != tile.shape().size()) throw Error("permute: perm has the wrong rank");
    Shape shape;
    for (std::size_t d : perm) shape.push_back(tile.shape()[std::min(d, perm.size() - 1)]);
    Tile out = Tile::uninitialized(tile.dtype(), shape);
    visit_dtype(tile.dtype(), [&](auto t) {
        using T = decltype(t);
        permute<T>(tile.data<T>(), tile.shape(), perm, out.data<T>());
    });
    return out;
}

}  // namespace tra::kernels
