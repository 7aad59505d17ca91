#pragma once
// Shared helpers of the kernel unit tests (test_kernels*.cpp): tiles from values, closed forms
// or a seeded generator, one-call kernel runs, and element-wise comparison.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "core/tile.hpp"
#include "kernels/kernel.hpp"
#include "kernels/registry.hpp"
#include "kernels/tile_copy.hpp"

namespace tra::kernel_testing {

constexpr double kInf = std::numeric_limits<double>::infinity();

inline Tile random_tile(DType d, Shape shape, double lo = -2.0, double hi = 2.0,
                        unsigned seed = 1) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> dist(lo, hi);
    Tile t(d, std::move(shape));
    for (std::int64_t i = 0; i < t.elements(); ++i) t.set(i, dist(gen));
    return t;
}

inline Tile filled(DType d, Shape shape, double v) {
    Tile t(d, std::move(shape));
    for (std::int64_t i = 0; i < t.elements(); ++i) t.set(i, v);
    return t;
}

inline Tile from_values(DType d, Shape shape, std::vector<double> values) {
    Tile t(d, std::move(shape));
    REQUIRE(static_cast<std::int64_t>(values.size()) == t.elements());
    for (std::int64_t i = 0; i < t.elements(); ++i) t.set(i, values[i]);
    return t;
}

inline Tile run(const kernels::KernelCall& call, std::vector<const Tile*> ops,
                const kernels::TilePosition& where = {}) {
    Tile out = call.apply(ops, where);
    std::vector<Shape> shapes;
    for (const Tile* t : ops) shapes.push_back(t->shape());
    CHECK(out.shape() == call.output_shape(shapes));
    CHECK(out.dtype() == ops[0]->dtype());
    return out;
}

inline Tile run(const std::string& name, std::vector<const Tile*> ops,
                kernels::KernelParams p = {}) {
    return run(kernels::KernelCall(name, std::move(p)), std::move(ops));
}

inline double tolerance(DType d) {
    return d == DType::F32 ? 2e-5 : 1e-12;
}

inline bool close(double got, double want, double tol) {
    if (std::isnan(want)) return std::isnan(got);
    if (std::isinf(want)) return got == want;
    return std::abs(got - want) <= tol * (1.0 + std::abs(want));
}

inline void require_close(const Tile& got, const Tile& want) {
    REQUIRE(got.shape() == want.shape());
    REQUIRE(got.dtype() == want.dtype());
    for (std::int64_t i = 0; i < got.elements(); ++i) {
        INFO("element " << i << " of " << got.shape().str());
        REQUIRE(close(got.get(i), want.get(i), tolerance(got.dtype())));
    }
}

// A tile of `shape` whose every element is f(row-major index vector).
inline Tile generate(DType d, const Shape& shape, const std::function<double(const Shape&)>& f) {
    Tile t(d, shape);
    Shape idx(shape.size());
    if (t.elements() == 0) return t;
    std::int64_t flat = 0;
    do t.set(flat++, f(idx));
    while (next_in_box(idx, shape));
    return t;
}

inline double at(const Tile& t, std::initializer_list<std::int64_t> idx) {
    return t.get(row_major_offset(Shape(idx), t.shape()));
}

inline std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        CHECK(e.where().empty());
        return e.message();
    }
    return "<no error>";
}

const std::vector<DType> kDtypes = {DType::F32, DType::F64};

inline kernels::KernelParams factor_params(double f) {
    kernels::KernelParams p;
    p.factor = f;
    return p;
}

inline kernels::KernelParams spec_params(std::string spec, std::string join = "mul",
                                         std::string agg = "add") {
    kernels::KernelParams p;
    p.spec = std::move(spec);
    p.join_op = std::move(join);
    p.agg_op = std::move(agg);
    return p;
}

}  // namespace tra::kernel_testing
