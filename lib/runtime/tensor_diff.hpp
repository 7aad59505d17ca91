#pragma once
// Element-wise comparison of two stored tensors, as numpy.allclose does it:
// |x - y| <= atol + rtol * |y|, with NaN equal to NaN and an infinity equal to itself at the same
// position. Reads both datasets
// in slabs of bounded size, never whole.
#include <cstdint>
#include <optional>
#include <string>

#include "core/dtype.hpp"
#include "core/index_vector.hpp"

namespace tra::runtime {

struct Tolerance {
    double rtol;
    double atol;
    // Defaults: f64 rtol 1e-9, atol 1e-12; f32 rtol 1e-4, atol 1e-5 (the looser dtype wins).
    static Tolerance for_dtypes(DType a, DType b);
    // Whether x is within tolerance of the expected y (numpy.allclose with equal_nan): NaN
    // matches NaN, inf matches inf of the same sign (|inf - inf| is NaN, so x == y is asked first).
    bool close(double x, double y) const;
};

struct DiffResult {
    bool shapes_match = true;
    Shape shape_a, shape_b;
    std::int64_t elements = 0;
    std::int64_t mismatches = 0;
    std::optional<Shape> first_mismatch;  // index of the first element outside tolerance
    double first_a = 0, first_b = 0;
    double max_abs = 0, max_rel = 0;

    bool equal() const { return shapes_match && mismatches == 0; }
};

// Compares dataset `da` of file `a` with dataset `db` of file `b`.
DiffResult diff_datasets(const std::string& a, const std::string& da, const std::string& b,
                         const std::string& db, const Tolerance& tolerance);

}  // namespace tra::runtime
