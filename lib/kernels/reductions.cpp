// Kernels that reshape or reduce a 2-D tile: row_sum, col_sum, softmax_rows, diag, transpose.
// Split among kernel_threads() threads by rows (row_sum, softmax_rows) or columns (col_sum):
// each output element is summed by one thread in the same order, so results do not depend on
// the thread count.
#include <algorithm>
#include <cmath>

#include "kernels/cpu_kernels.hpp"
#include "kernels/parallel_for.hpp"
#include "kernels/tile_permute.hpp"

namespace tra::kernels::cpu {

namespace {

// Rows per thread at least, for rows of `cols` elements.
std::int64_t row_grain(std::int64_t cols) {
    return kGrainElements / std::max<std::int64_t>(cols, 1) + 1;
}

// The output shape of a 2-D tile, or why it does not fit.
using ShapeFn = Checked<Shape> (*)(const Shape&);
// The kernel body for element type T; overloads for float and double come from one template.
template <class T>
using Body = void (*)(const T* in, T* out, std::int64_t rows, std::int64_t cols);

struct MatrixKernel {
    const char* name;
    const char* summary;
    ShapeFn shape;
    Body<float> f32;
    Body<double> f64;
};

Kernel make_matrix_kernel(const MatrixKernel& m, KernelProperties props) {
    Kernel k;
    k.name = m.name;
    k.arity = 1;
    k.properties = std::move(props);
    k.summary = m.summary;
    auto shape = [m](std::span<const Shape> ops) -> Checked<Shape> {
        if (auto problem = operand_count_problem(m.name, ops.size(), 1)) return *problem;
        if (auto problem = rank_problem(m.name, ops[0], 2)) return *problem;
        return m.shape(ops[0]);
    };
    k.output_shape = [shape](std::span<const Shape> ops, const KernelParams&) {
        return shape(ops);
    };
    k.apply = [m, shape](std::span<const Tile* const> ops, const KernelParams&,
                         const TilePosition&) {
        expect_operand_count(m.name, ops.size(), 1);
        DType d = common_dtype(m.name, ops);
        const Tile& in = *ops[0];
        Tile out(d, shape(shapes_of(ops)).value());
        std::int64_t rows = in.shape()[0], cols = in.shape()[1];
        if (d == DType::F32)
            m.f32(in.data<float>(), out.data<float>(), rows, cols);
        else
            m.f64(in.data<double>(), out.data<double>(), rows, cols);
        return out;
    };
    return k;
}

template <class T>
void row_sum(const T* in, T* out, std::int64_t rows, std::int64_t cols) {
    parallel_for(rows, row_grain(cols), [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t r = begin; r < end; ++r) {
            T s = 0;
            for (std::int64_t c = 0; c < cols; ++c) s += in[r * cols + c];
            out[r] = s;
        }
    });
}

template <class T>
void col_sum(const T* in, T* out, std::int64_t rows, std::int64_t cols) {
    // Row by row so the inner loop walks both arrays contiguously; out starts zeroed. Threads
    // take column ranges (at least 16 lines wide, so they share no cache line of out).
    const std::int64_t grain = std::max<std::int64_t>(1024 / sizeof(T), row_grain(rows));
    parallel_for(cols, grain, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t c = begin; c < end; ++c) out[c] += in[r * cols + c];
    });
}

template <class T>
void softmax_rows(const T* in, T* out, std::int64_t rows, std::int64_t cols) {
    if (cols == 0) return;
    parallel_for(rows, row_grain(cols) / 4 + 1, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t r = begin; r < end; ++r) {
            const T* x = in + r * cols;
            T* y = out + r * cols;
            // Subtracting the row maximum keeps exp from overflowing; the result is unchanged.
            T mx = *std::max_element(x, x + cols);
            T sum = 0;
            for (std::int64_t c = 0; c < cols; ++c) sum += (y[c] = std::exp(x[c] - mx));
            for (std::int64_t c = 0; c < cols; ++c) y[c] /= sum;
        }
    });
}

template <class T>
void diag(const T* in, T* out, std::int64_t rows, std::int64_t cols) {
    for (std::int64_t i = 0; i < std::min(rows, cols); ++i) out[i] = in[i * cols + i];
}

template <class T>
void transpose(const T* in, T* out, std::int64_t rows, std::int64_t cols) {
    Shape shape;
    shape.push_back(rows);
    shape.push_back(cols);
    const std::size_t perm[] = {1, 0};
    permute<T>(in, shape, perm, out);  // blocked and threaded
}

Checked<Shape> row_shape(const Shape& s) {
    return Shape{s[0]};
}
Checked<Shape> col_shape(const Shape& s) {
    return Shape{s[1]};
}
Checked<Shape> same(const Shape& s) {
    return s;
}
Checked<Shape> transposed(const Shape& s) {
    return Shape{s[1], s[0]};
}
Checked<Shape> diag_shape(const Shape& s) {
    if (s[0] != s[1]) return Error("diag: tile is not square: " + s.str());
    return Shape{s[0]};
}

}  // namespace

std::vector<Kernel> reduction_kernels() {
    // Picking elements out commutes with every elementwise aggregation.
    const std::vector<std::string> selection = {"add", "max", "min", "mul"};
    std::vector<Kernel> out;

    KernelProperties sums;
    sums.distributes_over = {"add"};  // sums are linear
    sums.zero_preserving = true;      // and sums of zeros are 0
    sums.finite = true;
    out.push_back(make_matrix_kernel({"row_sum", "sums each row of an [r, c] tile -> [r]",
                                      row_shape, row_sum<float>, row_sum<double>},
                                     sums));
    out.push_back(make_matrix_kernel({"col_sum", "sums each column of an [r, c] tile -> [c]",
                                      col_shape, col_sum<float>, col_sum<double>},
                                     sums));

    KernelProperties softmax;
    softmax.requires_whole_rows = true;  // each row is normalised by its own total
    softmax.zero_preserving = false;     // a row of zeros becomes 1 / c everywhere
    softmax.finite = true;
    out.push_back(make_matrix_kernel(
        {"softmax_rows", "softmax of each row of an [r, c] tile (numerically stable)", same,
         softmax_rows<float>, softmax_rows<double>},
        softmax));

    KernelProperties select;
    select.distributes_over = selection;
    select.zero_preserving = true;  // picks elements out, so zeros stay zeros
    select.finite = true;
    out.push_back(
        make_matrix_kernel({"diag", "the diagonal of a square [n, n] tile -> [n], like numpy.diag",
                            diag_shape, diag<float>, diag<double>},
                           select));
    out.push_back(make_matrix_kernel({"transpose", "transpose of a 2-D tile: [r, c] -> [c, r]",
                                      transposed, transpose<float>, transpose<double>},
                                     select));
    return out;
}

}  // namespace tra::kernels::cpu
