#include "runtime/freivalds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/vector_clones.hpp"

namespace tra::runtime::freivalds {

namespace {

constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

// splitmix64's output function: a fixed generator, so every rank and platform draws the same.
std::uint64_t finalize(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

}  // namespace

std::vector<double> sign_vector(std::uint64_t seed, std::size_t length) {
    std::vector<double> r(length);
    std::uint64_t x = seed;
    for (auto& v : r) {
        x += kGolden;
        v = (finalize(x) >> 63) ? 1.0 : -1.0;
    }
    return r;
}

std::uint64_t mix(std::uint64_t seed, std::int64_t value) {
    return finalize(seed ^ (static_cast<std::uint64_t>(value) + kGolden));
}

namespace {

// The loops of the check: one pass over a tile that comes from memory, so they must run at its
// bandwidth. Compiled per instruction set (TRA_VECTOR_CLONES); the sums run in kLanes partial
// sums each, which GCC turns into one vector per sum (it may not reorder one sum by itself).
constexpr int kLanes = 8;

// {sum_j x_j u_j, sum_j |x_j| w_j}, accumulated in Acc.
template <class Acc, class T, class V>
TRA_VECTOR_CLONES void dot_both(const T* x, const V* u, const V* w, std::int64_t n, Acc& dot,
                                Acc& magnitude) {
    Acc s[kLanes] = {}, a[kLanes] = {};
    std::int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes)
        for (int q = 0; q < kLanes; ++q) {
            s[q] += static_cast<Acc>(x[j + q]) * static_cast<Acc>(u[j + q]);
            a[q] += std::fabs(static_cast<Acc>(x[j + q])) * static_cast<Acc>(w[j + q]);
        }
    for (; j < n; ++j) {
        s[0] += static_cast<Acc>(x[j]) * static_cast<Acc>(u[j]);
        a[0] += std::fabs(static_cast<Acc>(x[j])) * static_cast<Acc>(w[j]);
    }
    for (int width = kLanes / 2; width > 0; width /= 2)
        for (int q = 0; q < width; ++q) {
            s[q] += s[q + width];
            a[q] += a[q + width];
        }
    dot = s[0];
    magnitude = a[0];
}

// y += c x and ym += |x| cm, element-wise over n.
template <class Acc, class T>
TRA_VECTOR_CLONES void axpy_both(const T* x, Acc c, Acc cm, Acc* __restrict y, Acc* __restrict ym,
                                 std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i) {
        y[i] += static_cast<Acc>(x[i]) * c;
        ym[i] += std::fabs(static_cast<Acc>(x[i])) * cm;
    }
}

// {t r, |t| |r|} contracted on `dim`, into `out` and `magnitude` (zeroed tiles of t's dtype and
// contracted shape), in one pass over t.
template <class T>
void contract(const Tile& t, std::size_t dim, const std::vector<double>& r, Tile& out,
              Tile& magnitude) {
    const Shape& s = t.shape();
    std::int64_t outer = 1, inner = 1;
    for (std::size_t i = 0; i < dim; ++i) outer *= s[i];
    for (std::size_t i = dim + 1; i < s.size(); ++i) inner *= s[i];
    const std::int64_t extent = s[dim];
    std::vector<T> w(static_cast<std::size_t>(extent)), ones(w.size(), T(1));  // |r| = 1
    for (std::int64_t j = 0; j < extent; ++j)
        w[static_cast<std::size_t>(j)] = static_cast<T>(r[static_cast<std::size_t>(j)]);
    const T* in = t.data<T>();
    T* o = out.data<T>();
    T* m = magnitude.data<T>();
    if (inner == 1) {  // the last dimension: a dot product per row
        for (std::int64_t a = 0; a < outer; ++a)
            dot_both<T>(in + a * extent, w.data(), ones.data(), extent, o[a], m[a]);
        return;
    }
    for (std::int64_t a = 0; a < outer; ++a)
        for (std::int64_t j = 0; j < extent; ++j)
            axpy_both<T>(in + (a * extent + j) * inner, w[static_cast<std::size_t>(j)], T(1),
                         o + a * inner, m + a * inner, inner);
}

Shape contracted_shape(const Tile& t, std::size_t dim) {
    Shape shape = t.shape();
    if (dim < shape.size()) shape[dim] = 1;
    return shape;
}

// {L u, |L| w} of a matrix L contracted on `dim` (1: [m, k]; 0: [k, m]) with vectors of k.
template <class T>
void matrix_vector(const Tile& l, std::size_t dim, const std::vector<double>& u,
                   const std::vector<double>& w, double* y, double* ym) {
    const std::int64_t rows = l.shape()[0], cols = l.shape()[1];
    const T* in = l.data<T>();
    if (dim == 1) {  // a dot product per row
        for (std::int64_t i = 0; i < rows; ++i)
            dot_both<double>(in + i * cols, u.data(), w.data(), cols, y[i], ym[i]);
        return;
    }
    for (std::int64_t k = 0; k < rows; ++k)  // L [k, m]: a scaled row added per k
        axpy_both<double>(in + k * cols, u[static_cast<std::size_t>(k)],
                          w[static_cast<std::size_t>(k)], y, ym, cols);
}

}  // namespace

std::pair<Tile, Tile> contract_dim_both(const Tile& t, std::size_t dim,
                                        const std::vector<double>& r) {
    if (dim >= t.rank() || static_cast<std::size_t>(t.shape()[dim]) > r.size())
        throw Error("freivalds: cannot contract dimension " + std::to_string(dim), {},
                    ErrorKind::Failed);
    std::pair<Tile, Tile> both{Tile(t.dtype(), contracted_shape(t, dim)),
                               Tile(t.dtype(), contracted_shape(t, dim))};
    if (t.dtype() == DType::F32)
        contract<float>(t, dim, r, both.first, both.second);
    else
        contract<double>(t, dim, r, both.first, both.second);
    return both;
}

std::pair<Tile, Tile> matrix_vector_both(const Tile& l, std::size_t dim, const Tile& u,
                                         const Tile& w) {
    if (l.rank() != 2 || dim > 1 || u.elements() != l.shape()[dim] || w.elements() != u.elements())
        throw Error("freivalds: a matrix-vector product of the wrong shapes", {},
                    ErrorKind::Failed);
    auto as_doubles = [](const Tile& t) {
        std::vector<double> v(static_cast<std::size_t>(t.elements()));
        if (t.dtype() == DType::F32)
            std::copy(t.data<float>(), t.data<float>() + t.elements(), v.begin());
        else
            std::copy(t.data<double>(), t.data<double>() + t.elements(), v.begin());
        return v;
    };
    const std::vector<double> uu = as_doubles(u), ww = as_doubles(w);
    const Shape shape{l.shape()[1 - dim], 1};
    std::pair<Tile, Tile> out{Tile(DType::F64, shape), Tile(DType::F64, shape)};
    double* y = out.first.data<double>();
    double* ym = out.second.data<double>();
    if (l.dtype() == DType::F32)
        matrix_vector<float>(l, dim, uu, ww, y, ym);
    else
        matrix_vector<double>(l, dim, uu, ww, y, ym);
    return out;
}

namespace {

template <class T>
void absolute_copy(const Tile& from, Tile& to) {
    const T* p = from.data<T>();
    T* q = to.data<T>();
    for (std::int64_t i = 0; i < from.elements(); ++i) q[i] = std::fabs(p[i]);
}

}  // namespace

void absolute_into(const Tile& t, Tile& out) {
    if (out.dtype() != t.dtype() || out.shape() != t.shape())
        throw Error("freivalds: |t| needs a tile of t's shape", {}, ErrorKind::Failed);
    if (t.dtype() == DType::F32)
        absolute_copy<float>(t, out);
    else
        absolute_copy<double>(t, out);
}

bool within_bound(double lhs, double rhs, double magnitude, std::int64_t n, DType dtype) {
    if (std::isnan(lhs) || std::isnan(rhs)) return false;
    if (lhs == rhs) return true;  // also equal infinities
    const double eps = dtype == DType::F32 ? std::numeric_limits<float>::epsilon()
                                           : std::numeric_limits<double>::epsilon();
    const double bound = 8.0 * eps * static_cast<double>(n < 1 ? 1 : n) * magnitude;
    return std::fabs(lhs - rhs) <= bound;
}

}  // namespace tra::runtime::freivalds
