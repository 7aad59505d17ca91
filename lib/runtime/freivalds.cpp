#include "runtime/freivalds.hpp"

#include <cmath>
#include <limits>

namespace tra::runtime::freivalds {

std::vector<double> sign_vector(std::uint64_t seed, std::size_t length) {
    std::vector<double> r(length);
    std::uint64_t x = seed;
    for (auto& v : r) {
        // splitmix64: a fixed generator, so every rank and platform draws the same signs.
        x += 0x9e3779b97f4a7c15ULL;
        std::uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        v = (z >> 63) ? 1.0 : -1.0;
    }
    return r;
}

namespace {

// |x| when Magnitude (the bound's side), x otherwise.
template <bool Magnitude, class T>
T term(T x) {
    if constexpr (Magnitude) return std::fabs(x);
    return x;
}

template <bool Magnitude, class T>
void contract(const Tile& t, std::size_t dim, const std::vector<double>& r, Tile& out) {
    const Shape& s = t.shape();
    std::int64_t outer = 1, inner = 1;
    for (std::size_t i = 0; i < dim; ++i) outer *= s[i];
    for (std::size_t i = dim + 1; i < s.size(); ++i) inner *= s[i];
    const std::int64_t extent = s[dim];
    std::vector<T> w(static_cast<std::size_t>(extent));
    for (std::int64_t j = 0; j < extent; ++j)
        w[static_cast<std::size_t>(j)] =
            static_cast<T>(term<Magnitude>(r[static_cast<std::size_t>(j)]));
    const T* in = t.data<T>();
    T* o = out.data<T>();
    if (inner == 1) {  // the last dimension: one dot product per row, which vectorizes
        for (std::int64_t a = 0; a < outer; ++a) {
            const T* row = in + a * extent;
            T sum = 0;
            for (std::int64_t j = 0; j < extent; ++j)
                sum += w[static_cast<std::size_t>(j)] * term<Magnitude>(row[j]);
            o[a] = sum;
        }
        return;
    }
    for (std::int64_t a = 0; a < outer; ++a)
        for (std::int64_t j = 0; j < extent; ++j) {
            const T wj = w[static_cast<std::size_t>(j)];
            const T* row = in + (a * extent + j) * inner;
            T* dst = o + a * inner;
            for (std::int64_t b = 0; b < inner; ++b) dst[b] += wj * term<Magnitude>(row[b]);
        }
}

}  // namespace

Tile contract_dim(const Tile& t, std::size_t dim, const std::vector<double>& r, bool magnitude) {
    if (dim >= t.rank() || static_cast<std::size_t>(t.shape()[dim]) > r.size())
        throw Error("freivalds: cannot contract dimension " + std::to_string(dim), {},
                    ErrorKind::Failed);
    Shape shape = t.shape();
    shape[dim] = 1;
    Tile out(t.dtype(), shape);
    const bool f32 = t.dtype() == DType::F32;
    if (magnitude)
        f32 ? contract<true, float>(t, dim, r, out) : contract<true, double>(t, dim, r, out);
    else
        f32 ? contract<false, float>(t, dim, r, out) : contract<false, double>(t, dim, r, out);
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

Tile absolute(const Tile& t) {
    Tile out = Tile::uninitialized(t.dtype(), t.shape());
    absolute_into(t, out);
    return out;
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
