#include "runtime/tensor_diff.hpp"

#include <algorithm>
#include <cmath>

#include "storage/tensor_file.hpp"

namespace tra::runtime {

namespace {
// Bounds the slab each side reads at once.
constexpr std::int64_t kSlabElements = std::int64_t{1} << 22;
}  // namespace

Tolerance Tolerance::for_dtypes(DType a, DType b) {
    if (a == DType::F32 || b == DType::F32) return {1e-4, 1e-5};
    return {1e-9, 1e-12};
}

bool Tolerance::close(double x, double y) const {
    if (x == y || (std::isnan(x) && std::isnan(y))) return true;
    return std::fabs(x - y) <= atol + rtol * std::fabs(y);
}

DiffResult diff_datasets(const std::string& a, const std::string& da, const std::string& b,
                         const std::string& db, const Tolerance& tol) {
    storage::DatasetReader ra(a, da), rb(b, db);
    DiffResult r;
    r.shape_a = ra.info().shape;
    r.shape_b = rb.info().shape;
    if (r.shape_a != r.shape_b) {
        r.shapes_match = false;
        return r;
    }
    const Shape& shape = r.shape_a;
    r.elements = shape.product();
    if (r.elements == 0) return r;
    // Slabs of whole rows along dimension 0 (a scalar dataset is one slab).
    const std::int64_t rows = shape.empty() ? 1 : shape[0];
    const std::int64_t row_elements = shape.empty() ? 1 : r.elements / rows;
    const std::int64_t rows_per_slab = std::max<std::int64_t>(1, kSlabElements / row_elements);
    for (std::int64_t row = 0; row < rows; row += rows_per_slab) {
        Shape origin(shape.size(), 0), extent = shape;
        if (!shape.empty()) {
            origin[0] = row;
            extent[0] = std::min(rows_per_slab, rows - row);
        }
        const Tile ta = ra.read_block(origin, extent), tb = rb.read_block(origin, extent);
        for (std::int64_t i = 0; i < ta.elements(); ++i) {
            const double x = ta.get(i), y = tb.get(i);
            if (x == y || (std::isnan(x) && std::isnan(y))) continue;  // infinities too
            const double abs = std::fabs(x - y);
            const double rel = y != 0 ? abs / std::fabs(y) : (abs == 0 ? 0 : INFINITY);
            if (!std::isnan(abs)) {
                r.max_abs = std::max(r.max_abs, abs);
                r.max_rel = std::max(r.max_rel, rel);
            }
            if (tol.close(x, y)) continue;
            if (r.mismatches++ == 0) {
                Shape index(shape.size(), 0);
                std::int64_t flat = row * row_elements + i;
                for (std::size_t d = shape.size(); d-- > 0;) {
                    index[d] = flat % shape[d];
                    flat /= shape[d];
                }
                r.first_mismatch = index;
                r.first_a = x;
                r.first_b = y;
            }
        }
    }
    return r;
}

}  // namespace tra::runtime
