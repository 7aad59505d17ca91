#pragma once
// What the einsum kernel's BLAS-path tests share (test_einsum_gemm*.cpp): operand tiles, the
// naive sum over all labels that results are checked against, and GEMM plans of specs.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/tile.hpp"
#include "kernels/einsum_gemm.hpp"
#include "kernels/kernel.hpp"

namespace tra::testing {

// Tiles for the operands of `spec` with every label's extent from `extents`.
inline Shape shape_of(const std::string& labels, const std::map<char, std::int64_t>& extents) {
    Shape s;
    for (char c : labels) s.push_back(extents.at(c));
    return s;
}

inline Tile random_tile(DType d, Shape shape, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    Tile t(d, std::move(shape));
    for (std::int64_t i = 0; i < t.elements(); ++i) t.set(i, dist(gen));
    return t;
}

inline std::int64_t flat(const std::string& labels, const std::map<char, std::int64_t>& extents,
                         const std::map<char, std::int64_t>& at) {
    std::int64_t f = 0;
    for (char c : labels) f = f * extents.at(c) + at.at(c);
    return f;
}

// out[o] = sum over every other label of a[..] * b[..], by visiting every label assignment.
inline std::vector<double> naive(const std::string& a, const std::string& b, const std::string& o,
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

inline void check_spec(const std::string& a, const std::string& b, const std::string& o,
                       const std::map<char, std::int64_t>& all_extents) {
    std::map<char, std::int64_t> extents;  // only the spec's labels: the others are not summed
    for (char c : a + b) extents[c] = all_extents.at(c);
    for (DType d : {DType::F64, DType::F32}) {
        INFO(a + "," + b + "->" + o << (d == DType::F32 ? " f32" : " f64"));
        Tile ta = random_tile(d, shape_of(a, extents), 1);
        Tile tb = random_tile(d, shape_of(b, extents), 2);
        kernels::KernelParams p;
        p.spec = a + "," + b + "->" + o;
        Tile out = kernels::KernelCall("einsum", p).apply(std::vector<const Tile*>{&ta, &tb}, {});
        REQUIRE(out.shape() == shape_of(o, extents));
        std::vector<double> want = naive(a, b, o, extents, ta, tb);
        const double tol = d == DType::F32 ? 1e-4 : 1e-12;
        for (std::int64_t i = 0; i < out.elements(); ++i)
            REQUIRE(std::abs(out.get(i) - want[i]) <= tol * (1 + std::abs(want[i])));
        // acc += the product, as a fused join + aggregate does.
        Tile acc = random_tile(d, shape_of(o, extents), 3);
        const Tile before = acc;
        REQUIRE(
            kernels::KernelCall("einsum", p).accumulate(acc, std::vector<const Tile*>{&ta, &tb}));
        for (std::int64_t i = 0; i < acc.elements(); ++i)
            REQUIRE(std::abs(acc.get(i) - before.get(i) - want[i]) <=
                    tol * (2 + std::abs(want[i])));
    }
}

// Every order of `labels`.
inline std::vector<std::string> orders_of(std::string labels) {
    std::sort(labels.begin(), labels.end());
    std::vector<std::string> out;
    do out.push_back(labels);
    while (std::next_permutation(labels.begin(), labels.end()));
    return out;
}

// The GEMM plan of a spec (`canonical`: the GPU's).
inline kernels::cpu::GemmPlan plan(const std::string& a, const std::string& b, const std::string& o,
                                   const std::map<char, std::int64_t>& extents,
                                   bool canonical = false) {
    std::vector<std::int64_t> e(26, 1);
    for (const auto& [c, x] : extents) e[static_cast<std::size_t>(c - 'a')] = x;
    return kernels::cpu::plan_gemm(a, b, o, e, canonical);
}

// How many elements the GEMM plan of a spec permutes.
inline std::int64_t permuted(const std::string& a, const std::string& b, const std::string& o,
                             const std::map<char, std::int64_t>& extents) {
    return plan(a, b, o, extents).permuted_elements();
}

}  // namespace tra::testing
