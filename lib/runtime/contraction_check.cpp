// OutputVerification's Freivalds check of a contraction (output_verification.hpp). The output
// tiles that share rows (the same key once the positions that come from R's own key, the
// column blocks, are left out: a row group) are checked together as one matrix: each tile's
// columns get signs of their own, drawn from the run's seed and the tile's column key, and
//     sum_g O_g r_g == sum_p K(L_p, sum of R r over the right tiles L_p meets)
// row by row. So each left tile is multiplied with one vector however many right tiles it meets
// (the output tiles of its rows). Both sides are summed over the ranks (one MPI_Allreduce of row
// vectors) and every rank compares them within the residual bound of freivalds.hpp.
#include <algorithm>
#include <cmath>
#include <map>
#include <span>
#include <variant>

#include "core/error.hpp"
#include "runtime/freivalds.hpp"
#include "runtime/local_ops.hpp"
#include "runtime/output_verification.hpp"

namespace tra::runtime {

namespace {

// The four blocks of Sides::values.
enum Block : std::size_t { kOutput, kOutputMagnitude, kProducts, kProductsMagnitude, kBlocks };

// `t` itself, or a host copy in `copy` when it lives on the GPU (the check runs on the CPU).
const Tile& host_view(const Tile& t, Tile& copy) {
    if (!t.on_device()) return t;
    copy = t.to(Residence::Host);
    return copy;
}

// slot += t, where the slot is laid out as `slot_shape` and t (no larger in any dimension) fills
// the same multi-indices.
void add_into(double* slot, const Shape& slot_shape, const Tile& t) {
    const Shape& s = t.shape();
    if (s.size() != slot_shape.size())
        throw Error("verify: a tile of rank " + std::to_string(s.size()) + " in rows of rank " +
                        std::to_string(slot_shape.size()),
                    {}, ErrorKind::Failed);
    for (std::size_t d = 0; d < s.size(); ++d)
        if (s[d] > slot_shape[d])
            throw Error("verify: a tile larger than its relation's bound", {}, ErrorKind::Failed);
    std::vector<std::int64_t> at(s.size(), 0);  // t's multi-index of element i
    for (std::int64_t i = 0; i < t.elements(); ++i) {
        std::int64_t flat = 0;
        for (std::size_t d = 0; d < s.size(); ++d) flat = flat * slot_shape[d] + at[d];
        slot[flat] += t.get(i);
        for (std::size_t d = s.size(); d-- > 0;) {
            if (++at[d] < s[d]) break;
            at[d] = 0;
        }
    }
}

// a += b, element-wise (same dtype and shape).
template <class T>
void add_elements(Tile& a, const Tile& b) {
    T* x = a.data<T>();
    const T* y = b.data<T>();
    for (std::int64_t i = 0; i < a.elements(); ++i) x[i] += y[i];
}

void add_tile(Tile& a, const Tile& b) {
    if (a.dtype() == DType::F32)
        add_elements<float>(a, b);
    else
        add_elements<double>(a, b);
}

}  // namespace

OutputVerification::Sides OutputVerification::contraction_sides(const ia::OutputCheck& c,
                                                                const std::vector<HeldTuples>& held,
                                                                std::uint64_t seed) const {
    const ia::IaNode& j = plan_->node(*c.join);
    const ia::IaNodeId folds = *(*fused_)[*c.join];  // the aggregate (partial or not) it runs in
    const auto& join = std::get<JoinOp>(plan_->logical(j.id));
    const auto& by = std::get<AggregateOp>(plan_->logical(folds)).by;
    // A product's key is L's key and then R's key positions that are not joined on; the output
    // key is its positions `by`. Those from R's part are the column positions.
    const std::size_t left_arity = plan_->relation(j.inputs[0]).type.key_arity;
    const std::size_t right_arity = plan_->relation(j.inputs[1]).type.key_arity;
    std::vector<bool> joined(right_arity, false);
    for (auto p : join.right_keys) joined[p] = true;
    std::vector<std::size_t> own;  // R's key positions in a product key, after L's
    for (std::size_t i = 0; i < right_arity; ++i)
        if (!joined[i]) own.push_back(i);
    auto row_of_output = [&](const Key& g) {
        Key h;
        for (std::size_t q = 0; q < by.size(); ++q)
            if (by[q] < left_arity) h.push_back(g[q]);
        return h;
    };
    auto row_of_left = [&](const Key& lk) {
        Key h;
        for (auto p : by)
            if (p < left_arity) h.push_back(lk[p]);
        return h;
    };
    auto signs_of_output = [&](const Key& g) {
        std::uint64_t s = seed;
        for (std::size_t q = 0; q < by.size(); ++q)
            if (by[q] >= left_arity) s = freivalds::mix(s, g[q]);
        return s;
    };
    auto signs_of_right = [&](const Key& rk) {  // the same seed as its product's output tile
        std::uint64_t s = seed;
        for (auto p : by)
            if (p >= left_arity) s = freivalds::mix(s, rk[own.at(p - left_arity)]);
        return s;
    };

    // One slot per row group of the output (the same map on every rank), shaped as a tile's
    // bound with the last dimension 1.
    Sides s;
    for (const auto& [g, sites] : (*where_)[c.node]) s.rows.emplace(row_of_output(g), 0);
    std::size_t next = 0;
    for (auto& [h, index] : s.rows) index = next++;
    s.slot_shape = plan_->relation(c.node).type.bound;
    s.slot_shape[s.slot_shape.size() - 1] = 1;
    const auto slot = static_cast<std::size_t>(s.slot_shape.product());
    s.values.assign(kBlocks * s.rows.size() * slot, 0.0);
    s.products.assign(s.rows.size(), 0);
    auto row_index = [&](const Key& h) {
        const auto it = s.rows.find(h);
        if (it == s.rows.end())
            throw Error("verify: output " + c.output + " failed verification: rows " + h.str() +
                            " are none of the plan's",
                        {}, ErrorKind::Failed);
        return it->second;
    };
    auto slot_of = [&](Block block, const Key& h) {
        return s.values.data() + (block * s.rows.size() + row_index(h)) * slot;
    };

    // O r and |O| |r|, each output tile with its own signs.
    for (const auto& [g, t] : held.at(c.node).tuples) {
        Tile copy;
        const Tile& o = host_view(t, copy);
        const std::size_t last = o.rank() - 1;
        const auto r =
            freivalds::sign_vector(signs_of_output(g), static_cast<std::size_t>(o.shape()[last]));
        const auto [side, magnitude] = freivalds::contract_dim_both(o, last, r);
        add_into(slot_of(kOutput, row_of_output(g)), s.slot_shape, side);
        add_into(slot_of(kOutputMagnitude, row_of_output(g)), s.slot_shape, magnitude);
    }

    // R r and |R| |r|, with the signs of the output tile each right tile's products go to.
    Tuples right, right_abs;
    for (const auto& [k, t] : held.at(j.inputs[1]).tuples) {
        Tile copy;
        const Tile& h = host_view(t, copy);
        if (c.right_dim >= h.rank())
            throw Error("verify: a right tile of rank " + std::to_string(h.rank()), {},
                        ErrorKind::Failed);
        const std::int64_t width = h.shape()[c.right_dim];
        s.width = std::max(s.width, width);
        const auto r = freivalds::sign_vector(signs_of_right(k), static_cast<std::size_t>(width));
        auto [side, magnitude] = freivalds::contract_dim_both(h, c.right_dim, r);
        right.emplace(k, std::move(side));
        right_abs.emplace(k, std::move(magnitude));
    }

    // The join's pairs, as join_aggregate_tuples makes them: each left tile times the sum of
    // the R r it meets (by shape: edge tiles apart). Left tiles are visited one at a time so
    // that |L| needs one scratch tile, not a copy of the operand.
    std::map<Key, std::vector<Key>> by_join;
    for (const auto& [k, t] : right) by_join[project(k, join.right_keys)].push_back(k);
    const Frontier& frontier = plan_->origin(j.id).frontier;
    Tile left_abs;
    for (const auto& [lk, lt] : held.at(j.inputs[0]).tuples) {
        const auto match = by_join.find(project(lk, join.left_keys));
        if (match == by_join.end()) continue;
        Tile copy;
        const Tile& l = host_view(lt, copy);
        s.left_elements = std::max(s.left_elements, l.elements());
        std::map<Shape, std::pair<Tile, Tile>> sums;  // shape -> (sum of R r, of |R| |r|)
        for (const Key& rk : match->second) {
            const Tile& side = right.at(rk);
            const auto [at, fresh] = sums.try_emplace(side.shape(), side, right_abs.at(rk));
            if (fresh) continue;
            add_tile(at->second.first, side);
            add_tile(at->second.second, right_abs.at(rk));
        }
        const Key h = row_of_left(lk);
        s.products[row_index(h)] += static_cast<std::int64_t>(match->second.size());
        if (c.left_dim) {  // a matrix times vectors: both sides in one pass over L
            for (const auto& [shape, sum] : sums) {
                const auto [side, magnitude] =
                    freivalds::matrix_vector_both(l, *c.left_dim, sum.first, sum.second);
                add_into(slot_of(kProducts, h), s.slot_shape, side);
                add_into(slot_of(kProductsMagnitude, h), s.slot_shape, magnitude);
            }
            continue;
        }
        if (left_abs.shape() != l.shape() || left_abs.dtype() != l.dtype())
            left_abs = Tile::uninitialized(l.dtype(), l.shape());
        freivalds::absolute_into(l, left_abs);
        Key k = lk;  // the first product's key, for kernels that read it
        for (std::size_t i = 0; i < own.size(); ++i) k.push_back(match->second[0][own[i]]);
        for (const auto& [shape, sum] : sums) {
            const Tile* args[] = {&l, &sum.first};
            const Tile* abs_args[] = {&left_abs, &sum.second};
            add_into(slot_of(kProducts, h), s.slot_shape,
                     join.kernel.apply(std::span<const Tile* const>(args, 2), {k, frontier}));
            add_into(slot_of(kProductsMagnitude, h), s.slot_shape,
                     join.kernel.apply(std::span<const Tile* const>(abs_args, 2), {k, frontier}));
        }
    }
    return s;
}

void OutputVerification::sum_over_ranks(Sides& s, MPI_Comm comm) const {
    MPI_Allreduce(MPI_IN_PLACE, s.values.data(), static_cast<int>(s.values.size()), MPI_DOUBLE,
                  MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, s.products.data(), static_cast<int>(s.products.size()), MPI_INT64_T,
                  MPI_SUM, comm);
    std::int64_t widest[] = {s.left_elements, s.width};
    MPI_Allreduce(MPI_IN_PLACE, widest, 2, MPI_INT64_T, MPI_MAX, comm);
    s.left_elements = widest[0];
    s.width = widest[1];
}

std::string OutputVerification::compare(const ia::OutputCheck& c, const Sides& s) const {
    const DType dtype = plan_->relation(c.node).type.dtype;
    const std::size_t n = s.rows.size();
    const auto slot = static_cast<std::size_t>(s.slot_shape.product());
    for (const auto& [h, index] : s.rows) {
        const double* at[kBlocks];
        for (std::size_t b = 0; b < kBlocks; ++b) at[b] = s.values.data() + (b * n + index) * slot;
        // Terms summed into one element of either side: per product, a row of L times R r (each
        // element of R r a sum over the width), bounded by L's elements and the width.
        const std::int64_t terms =
            std::max<std::int64_t>(1, s.products[index]) * (s.left_elements + s.width);
        for (std::size_t i = 0; i < slot; ++i) {
            const double a = at[kOutput][i], b = at[kProducts][i];
            // |O| |r| joins the magnitude: the rounding of O r itself.
            const double magnitude = at[kProductsMagnitude][i] + at[kOutputMagnitude][i];
            if (!freivalds::within_bound(a, b, magnitude, terms, dtype))
                return "output " + c.output + " failed verification in its tiles of row key " +
                       h.str() + " (Freivalds check of #" + std::to_string(c.node) +
                       ": |O r - L (R r)| = " + std::to_string(std::fabs(a - b)) +
                       " in their row " + std::to_string(i) + ")";
        }
    }
    return "";
}

}  // namespace tra::runtime
