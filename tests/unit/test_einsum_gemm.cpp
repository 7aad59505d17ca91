// The einsum kernel's BLAS path: every contraction of matrix-product shape (batched, transposed,
// runs of labels as one dimension, dot and outer products) equals a naive sum over all labels,
// in f64 and f32; shapes that are not matrix products (batch labels not leading, a label summed
// inside one operand) fall back to the odometer and are equally right.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/tile.hpp"
#include "kernels/kernel.hpp"

using namespace tra;
using namespace tra::kernels;

namespace {

// Tiles for the operands of `spec` with every label's extent from `extents`.
Shape shape_of(const std::string& labels, const std::map<char, std::int64_t>& extents) {
    Shape s;
    for (char c : labels) s.push_back(extents.at(c));
    return s;
}

Tile random_tile(DType d, Shape shape, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    Tile t(d, std::move(shape));
    for (std::int64_t i = 0; i < t.elements(); ++i) t.set(i, dist(gen));
    return t;
}

std::int64_t flat(const std::string& labels, const std::map<char, std::int64_t>& extents,
                  const std::map<char, std::int64_t>& at) {
    std::int64_t f = 0;
    for (char c : labels) f = f * extents.at(c) + at.at(c);
    return f;
}

// out[o] = sum over every other label of a[..] * b[..], by visiting every label assignment.
std::vector<double> naive(const std::string& a, const std::string& b, const std::string& o,
                          const std::map<char, std::int64_t>& extents, const Tile& ta,
                          const Tile& tb) {
    std::int64_t out_size = 1;
    for (char c : o) out_size *= extents.at(c);
    std::vector<double> out(static_cast<std::size_t>(out_size), 0.0);
    std::map<char, std::int64_t> at;
    for (const auto& [c, e] : extents) {
        if (e == 0) return out;  // nothing to sum: zeros (or an empty output)
        at[c] = 0;
    }
    for (;;) {
        out[flat(o, extents, at)] += ta.get(flat(a, extents, at)) * tb.get(flat(b, extents, at));
        auto it = at.begin();
        for (; it != at.end(); ++it) {
            if (++it->second < extents.at(it->first)) break;
            it->second = 0;
        }
        if (it == at.end()) return out;
    }
}

void check_spec(const std::string& a, const std::string& b, const std::string& o,
                const std::map<char, std::int64_t>& all_extents) {
    std::map<char, std::int64_t> extents;  // only the spec's labels: the others are not summed
    for (char c : a + b) extents[c] = all_extents.at(c);
    for (DType d : {DType::F64, DType::F32}) {
        INFO(a + "," + b + "->" + o << (d == DType::F32 ? " f32" : " f64"));
        Tile ta = random_tile(d, shape_of(a, extents), 1);
        Tile tb = random_tile(d, shape_of(b, extents), 2);
        KernelParams p;
        p.spec = a + "," + b + "->" + o;
        Tile out = KernelCall("einsum", p).apply(std::vector<const Tile*>{&ta, &tb}, {});
        REQUIRE(out.shape() == shape_of(o, extents));
        std::vector<double> want = naive(a, b, o, extents, ta, tb);
        const double tol = d == DType::F32 ? 1e-4 : 1e-12;
        for (std::int64_t i = 0; i < out.elements(); ++i)
            REQUIRE(std::abs(out.get(i) - want[i]) <= tol * (1 + std::abs(want[i])));
    }
}

}  // namespace

TEST_CASE("einsum: 2-D matrix products with every transpose", "[einsum][gemm]") {
    std::map<char, std::int64_t> e{{'i', 5}, {'k', 7}, {'j', 3}};
    for (const char* a : {"ik", "ki"})
        for (const char* b : {"kj", "jk"})
            for (const char* o : {"ij", "ji"}) check_spec(a, b, o, e);
}

TEST_CASE("einsum: batched, grouped, dot and outer products go through BLAS", "[einsum][gemm]") {
    std::map<char, std::int64_t> e{{'b', 3}, {'c', 2}, {'i', 4}, {'j', 5}, {'k', 6}, {'l', 3}};
    check_spec("bik", "bkj", "bij", e);     // batched
    check_spec("bki", "bjk", "bji", e);     // batched, both transposed, output swapped
    check_spec("bcik", "bckj", "bcij", e);  // two batch labels
    check_spec("ijk", "kl", "ijl", e);      // rows i,j as one dimension
    check_spec("ikl", "klj", "ij", e);      // contraction over the run k,l
    check_spec("ik", "kjl", "ijl", e);      // columns j,l as one dimension
    check_spec("bk", "bk", "b", e);         // row-wise dot ("ne,ne->n")
    check_spec("k", "k", "", e);            // a plain dot product
    check_spec("i", "j", "ij", e);          // outer product
    check_spec("bi", "bj", "bij", e);       // batched outer product
    check_spec("ik", "kj", "ij", {{'i', 1}, {'k', 9}, {'j', 1}});  // 1 x 1 output
}

TEST_CASE("einsum: contractions that are no matrix product use the odometer", "[einsum][gemm]") {
    std::map<char, std::int64_t> e{{'b', 3}, {'i', 4}, {'j', 5}, {'k', 6}};
    check_spec("ibk", "bkj", "bij", e);  // batch label not leading in an operand
    check_spec("bik", "bkj", "ijb", e);  // batch label not leading in the output
    check_spec("ikj", "kj", "ij", e);    // j in both operands and the output, not leading
    check_spec("ikj", "k", "i", e);      // j summed inside the first operand alone
    check_spec("kil", "kjl", "ij", {{'i', 2}, {'j', 3}, {'k', 4}, {'l', 5}});  // runs k..l split
}

TEST_CASE("einsum: empty extents give zeros or empty tiles", "[einsum][gemm]") {
    check_spec("ik", "kj", "ij", {{'i', 3}, {'k', 0}, {'j', 2}});
    check_spec("bk", "bk", "b", {{'b', 3}, {'k', 0}});
    check_spec("bik", "bkj", "bij", {{'b', 0}, {'i', 2}, {'k', 3}, {'j', 2}});
}
