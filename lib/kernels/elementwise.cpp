// Binary kernels that combine two tiles element by element, and sub_row, which broadcasts a
// vector over the rows of a matrix.
#include <algorithm>
#include <limits>

#include "kernels/cpu_kernels.hpp"
#include "kernels/parallel_for.hpp"
#include "kernels/scalar_ops.hpp"

namespace tra::kernels::cpu {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Checked<Shape> same_shape(const std::string& name, std::span<const Shape> ops) {
    if (auto problem = operand_count_problem(name, ops.size(), 2)) return *problem;
    if (ops[0] != ops[1])
        return Error(name + ": operand shapes differ: " + shapes_str(ops, " vs "));
    return ops[0];
}

template <class Op>
Kernel make_binary(const std::string& name, const std::string& summary, KernelProperties props) {
    Kernel k;
    k.name = name;
    k.arity = 2;
    props.elementwise = true;
    k.properties = std::move(props);
    k.summary = summary;
    k.output_shape = [name](std::span<const Shape> ops, const KernelParams&) {
        return same_shape(name, ops);
    };
    k.apply = [name](std::span<const Tile* const> ops, const KernelParams&, const TilePosition&) {
        DType d = common_dtype(name, ops);
        // Every element is written below, by the thread that will read it next.
        Tile out = Tile::uninitialized(d, same_shape(name, shapes_of(ops)).value());
        visit_dtype(d, [&](auto t) {
            using T = decltype(t);
            const T* a = ops[0]->data<T>();
            const T* b = ops[1]->data<T>();
            T* c = out.data<T>();
            parallel_for(out.elements(), kGrainElements, [&](std::int64_t begin, std::int64_t end) {
                Op op;
                for (std::int64_t i = begin; i < end; ++i) c[i] = op(a[i], b[i]);
            });
        });
        return out;
    };
    return k;
}

Checked<Shape> sub_row_shape(std::span<const Shape> ops) {
    if (auto problem = operand_count_problem("sub_row", ops.size(), 2)) return *problem;
    if (ops[0].size() != 2 || ops[1].size() != 1 || ops[0][1] != ops[1][0])
        return Error("sub_row: expects an [r, c] tile and a [c] vector, got " + shapes_str(ops));
    return ops[0];
}

Kernel make_sub_row() {
    Kernel k;
    k.name = "sub_row";
    k.arity = 2;
    k.properties.zero_preserving = true;  // 0 - 0 == 0
    k.properties.finite = true;
    k.summary = "subtracts a [c] vector from every row of an [r, c] tile";
    k.output_shape = [](std::span<const Shape> ops, const KernelParams&) {
        return sub_row_shape(ops);
    };
    k.apply = [](std::span<const Tile* const> ops, const KernelParams&, const TilePosition&) {
        DType d = common_dtype("sub_row", ops);
        Tile out = Tile::uninitialized(d, sub_row_shape(shapes_of(ops)).value());
        visit_dtype(d, [&](auto t) {
            using T = decltype(t);
            const T* a = ops[0]->data<T>();
            const T* v = ops[1]->data<T>();
            T* c = out.data<T>();
            std::int64_t rows = out.shape()[0], cols = out.shape()[1];
            const std::int64_t grain = kGrainElements / std::max<std::int64_t>(cols, 1) + 1;
            parallel_for(rows, grain, [&](std::int64_t begin, std::int64_t end) {
                for (std::int64_t r = begin; r < end; ++r)
                    for (std::int64_t j = 0; j < cols; ++j)
                        c[r * cols + j] = a[r * cols + j] - v[j];
            });
        });
        return out;
    };
    return k;
}

}  // namespace

std::vector<Kernel> elementwise_kernels() {
    std::vector<Kernel> out;
    // zero_preserving: op(0, 0) == 0 holds for add, sub, mul, max and min; div's 0 / 0 is NaN.

    KernelProperties add;
    add.zero_preserving = true;
    add.finite = true;
    add.associative = add.commutative = true;
    add.identity = 0.0;
    // (a max b) + c == (a + c) max (b + c): adding a constant preserves order.
    add.distributes_over = {"max", "min"};
    out.push_back(make_binary<AddOp>("add", "elementwise sum of two tiles of one shape", add));

    // sub and div have only right identities (x - 0, x / 1), and distribute over max/min resp.
    // add only from the left, so they list nothing (see KernelProperties::distributes_over).
    KernelProperties sub;
    sub.zero_preserving = true;
    sub.finite = true;
    out.push_back(make_binary<SubOp>("sub", "elementwise difference a - b", sub));
    KernelProperties div;
    div.zero_preserving = false;
    out.push_back(make_binary<DivOp>("div", "elementwise quotient a / b", div));

    KernelProperties mul;
    mul.associative = mul.commutative = true;
    mul.identity = 1.0;
    mul.annihilator = 0.0;  // for finite elements: 0 * inf is NaN
    mul.zero_preserving = true;
    mul.finite = true;
    mul.zero_annihilates = true;  // for finite elements, as the annihilator
    // Not over max/min: a negative factor turns max into min.
    mul.distributes_over = {"add"};
    out.push_back(make_binary<MulOp>("mul", "elementwise (Hadamard) product", mul));

    // max and min form a distributive lattice: each distributes over the other and itself.
    KernelProperties max;
    max.associative = max.commutative = true;
    max.identity = -kInf;
    max.annihilator = kInf;
    max.zero_preserving = true;
    max.finite = true;
    max.distributes_over = {"max", "min"};
    out.push_back(make_binary<MaxOp>("max", "elementwise maximum (NaN propagates)", max));

    KernelProperties min;
    min.associative = min.commutative = true;
    min.identity = kInf;
    min.annihilator = -kInf;
    min.zero_preserving = true;
    min.finite = true;
    min.distributes_over = {"max", "min"};
    out.push_back(make_binary<MinOp>("min", "elementwise minimum (NaN propagates)", min));

    out.push_back(make_sub_row());
    return out;
}

}  // namespace tra::kernels::cpu
