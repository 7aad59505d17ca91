// argmin and its aggregation min_index. argmin turns any tile into a [2] tile
// [min value, global flat index]; min_index folds such pairs, so aggregating argmin's tiles
// with min_index yields the argmin of the whole relation viewed as one dense tensor.
#include <cmath>
#include <limits>

#include "kernels/cpu_kernels.hpp"

namespace tra::kernels::cpu {

namespace {

// NaN sorts above every number so a NaN never hides a real minimum; among equal values the
// lower index wins. That is a total order on pairs, which makes min_index associative and
// commutative.
template <class T>
bool pair_before(T va, T ia, T vb, T ib) {
    bool na = std::isnan(va), nb = std::isnan(vb);
    if (na != nb) return nb;
    if (!na && va != vb) return va < vb;
    return ia <= ib;
}

Checked<Shape> argmin_shape(std::span<const Shape> ops) {
    if (auto problem = operand_count_problem("argmin", ops.size(), 1)) return *problem;
    return Shape{2};
}

Kernel make_argmin() {
    Kernel k;
    k.name = "argmin";
    k.arity = 1;
    k.properties.reads_tile_position = true;
    // A tile of zeros gives [0, its first element's global index], nonzero away from the origin.
    k.properties.zero_preserving = false;
    k.summary = "any tile -> [min value, global flat index] (lowest index on ties, as a float)";
    k.output_shape = [](std::span<const Shape> ops, const KernelParams&) {
        return argmin_shape(ops);
    };
    k.apply = [](std::span<const Tile* const> ops, const KernelParams&, const TilePosition& where) {
        expect_operand_count("argmin", ops.size(), 1);
        DType d = common_dtype("argmin", ops);
        const Tile& in = *ops[0];
        if (in.elements() == 0) throw Error("argmin: the tile " + in.shape().str() + " is empty");
        Tile out(d, Shape{2});
        visit_dtype(d, [&](auto t) {
            using T = decltype(t);
            const T* x = in.data<T>();
            // Row-major order within a tile is also increasing global order, so the first
            // minimum found is the one with the lowest global index.
            std::int64_t best = 0;
            for (std::int64_t i = 1, n = in.elements(); i < n; ++i)
                if (!pair_before<T>(x[best], T(0), x[i], T(1))) best = i;
            T* o = out.data<T>();
            o[0] = x[best];
            o[1] = argmin_global_index<T>(in.shape(), where, best);
        });
        return out;
    };
    return k;
}

Checked<Shape> min_index_shape(std::span<const Shape> ops) {
    if (auto problem = operand_count_problem("min_index", ops.size(), 2)) return *problem;
    for (const Shape& s : ops)
        if (s != Shape{2})
            return Error("min_index: operands must be [2] tiles [value, index], got " +
                         shapes_str(ops));
    return Shape{2};
}

Kernel make_min_index() {
    Kernel k;
    k.name = "min_index";
    k.arity = 2;
    k.properties.associative = k.properties.commutative = true;
    // Two [0, 0] pairs tie and give [0, 0]. (That lets no fold skip absent tiles: [0, 0] is no
    // identity.)
    k.properties.zero_preserving = true;
    // No identity: [inf, inf] comes close but loses to a NaN value, which sorts above inf.
    k.summary = "of two [value, index] tiles, the smaller value (lower index on ties)";
    k.output_shape = [](std::span<const Shape> ops, const KernelParams&) {
        return min_index_shape(ops);
    };
    k.apply = [](std::span<const Tile* const> ops, const KernelParams&, const TilePosition&) {
        DType d = common_dtype("min_index", ops);
        min_index_shape(shapes_of(ops)).value();
        bool first = visit_dtype(d, [&](auto t) {
            using T = decltype(t);
            const T* a = ops[0]->data<T>();
            const T* b = ops[1]->data<T>();
            return pair_before<T>(a[0], a[1], b[0], b[1]);
        });
        return first ? *ops[0] : *ops[1];
    };
    return k;
}

}  // namespace

template <class T>
T argmin_global_index(const Shape& bound, const TilePosition& where, std::int64_t local) {
    std::size_t rank = bound.size();
    if (where.key.size() != rank || where.frontier.size() != rank)
        throw Error("argmin: the tile has rank " + std::to_string(rank) + " but its key " +
                    where.key.str() + " and frontier " + where.frontier.str() +
                    " need that many positions too: argmin reports indices of the relation "
                    "viewed as one dense tensor");
    Shape local_index(rank);
    for (std::size_t d = rank; d-- > 0;) {
        local_index[d] = local % bound[d];
        local /= bound[d];
    }
    std::int64_t global = 0;
    double total = 1;
    for (std::size_t d = 0; d < rank; ++d) {
        if (where.key[d] < 0 || where.key[d] >= where.frontier[d])
            throw Error("argmin: key " + where.key.str() + " lies outside frontier " +
                        where.frontier.str());
        std::int64_t extent = where.frontier[d] * bound[d];
        global = global * extent + where.key[d] * bound[d] + local_index[d];
        total *= static_cast<double>(extent);
    }
    if (total > std::ldexp(1.0, std::numeric_limits<T>::digits))
        throw Error("argmin: a tensor of " + std::to_string(static_cast<long double>(total)) +
                    " elements has indices that " + name_of(dtype_of<T>()) +
                    " cannot hold exactly; use f64");
    return static_cast<T>(global);
}

template float argmin_global_index<float>(const Shape&, const TilePosition&, std::int64_t);
template double argmin_global_index<double>(const Shape&, const TilePosition&, std::int64_t);

std::vector<Kernel> argmin_kernels() {
    return {make_argmin(), make_min_index()};
}

}  // namespace tra::kernels::cpu
