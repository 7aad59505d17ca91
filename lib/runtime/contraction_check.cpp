// OutputVerification's Freivalds check of a contraction (output_verification.hpp): the two sides
// of O r == sum_p K(L_p, R_p r), summed over the ranks when the products are partials, and their
// comparison within the residual bound of freivalds.hpp.
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

// `t` itself, or a host copy in `copy` when it lives on the GPU (the check runs on the CPU).
const Tile& host_view(const Tile& t, Tile& copy) {
    if (!t.on_device()) return t;
    copy = t.to(Residence::Host);
    return copy;
}

}  // namespace

OutputVerification::Sides OutputVerification::contraction_sides(const Check& c,
                                                                const std::vector<HeldTuples>& held,
                                                                std::uint64_t seed) const {
    const ia::IaNode& j = plan_->node(*c.join);
    const ia::IaNodeId folds = *(*fused_)[*c.join];  // the aggregate (partial or not) it runs in
    const auto& join = std::get<JoinOp>(plan_->logical(j.id));
    const auto& agg = std::get<AggregateOp>(plan_->logical(folds));
    Sides s;
    const Tuples& right_in = held.at(j.inputs[1]).tuples;
    for (const auto& [k, t] : right_in)
        if (c.right_dim < t.rank())
            s.width = std::max(s.width, static_cast<std::int64_t>(t.shape()[c.right_dim]));
    // r spans the widest tile; its prefix serves narrower (edge) tiles on every rank.
    const std::vector<double> r = freivalds::sign_vector(seed, static_cast<std::size_t>(s.width));
    Tuples right, right_abs;
    for (const auto& [k, t] : right_in) {
        Tile copy;
        const Tile& h = host_view(t, copy);
        right.emplace(k, freivalds::contract_dim(h, c.right_dim, r, false));
        right_abs.emplace(k, freivalds::contract_dim(h, c.right_dim, r, true));
    }
    // The join's products by group, as join_aggregate_tuples pairs them. Left tiles are visited
    // one at a time so that |L| needs one scratch tile, not a copy of the operand.
    const std::size_t arity = plan_->relation(j.inputs[1]).type.key_arity;
    std::vector<bool> joined(arity, false);
    for (auto p : join.right_keys) joined[p] = true;
    std::map<Key, std::vector<const std::pair<const Key, Tile>*>> by_join;
    for (const auto& entry : right)
        by_join[project(entry.first, join.right_keys)].push_back(&entry);
    const Frontier& frontier = plan_->origin(j.id).frontier;
    // acc += product, in place where the kernel can (gemm with beta = 1).
    auto add_product = [&](Tuples& sums, const Key& g, const Key& k, const Tile* args[2]) {
        auto it = sums.find(g);
        if (it == sums.end()) {
            sums.emplace(g,
                         join.kernel.apply(std::span<const Tile* const>(args, 2), {k, frontier}));
            return;
        }
        if (join.kernel.accumulate(it->second, std::span<const Tile* const>(args, 2))) return;
        const Tile p = join.kernel.apply(std::span<const Tile* const>(args, 2), {k, frontier});
        for (std::int64_t i = 0; i < p.elements(); ++i)
            it->second.set(i, it->second.get(i) + p.get(i));
    };
    Tile left_abs;
    for (const auto& [lk, lt] : held.at(j.inputs[0]).tuples) {
        const auto match = by_join.find(project(lk, join.left_keys));
        if (match == by_join.end()) continue;
        Tile copy;
        const Tile& l = host_view(lt, copy);
        s.left_elements = std::max(s.left_elements, l.elements());
        ++s.left_tiles;
        if (left_abs.shape() != l.shape() || left_abs.dtype() != l.dtype())
            left_abs = Tile::uninitialized(l.dtype(), l.shape());
        freivalds::absolute_into(l, left_abs);
        for (const auto* rt : match->second) {
            Key k = lk;
            for (std::size_t i = 0; i < rt->first.size(); ++i)
                if (!joined[i]) k.push_back(rt->first[i]);
            const Key g = project(k, agg.by);
            const Tile* args[] = {&l, &rt->second};
            add_product(s.rhs, g, k, args);
            const Tile* abs_args[] = {&left_abs, &right_abs.at(rt->first)};
            add_product(s.magnitude, g, k, abs_args);
        }
    }
    return s;
}

void OutputVerification::sum_over_ranks(const Check& c, const std::vector<HeldTuples>& held,
                                        Sides& s, MPI_Comm comm) const {
    // One slot per group of the output (the same map on every rank), as long as a tile's rows
    // (its bound with the last dimension 1); a smaller edge tile fills a prefix.
    const ia::SiteMap& groups = (*where_)[c.node];
    Shape bound = plan_->relation(c.node).type.bound;
    bound[bound.size() - 1] = 1;
    const auto slot = static_cast<std::size_t>(bound.product());
    std::vector<double> flat(2 * groups.size() * slot, 0.0);
    std::size_t g = 0;
    std::map<Key, std::size_t> index;
    for (const auto& [k, sites] : groups) {
        index[k] = g;
        for (const Tuples* side : {&s.rhs, &s.magnitude}) {
            const auto it = side->find(k);
            if (it == side->end()) continue;
            double* dst = flat.data() + (side == &s.rhs ? 0 : groups.size() * slot) + g * slot;
            for (std::int64_t i = 0; i < it->second.elements(); ++i) dst[i] = it->second.get(i);
        }
        ++g;
    }
    MPI_Allreduce(MPI_IN_PLACE, flat.data(), static_cast<int>(flat.size()), MPI_DOUBLE, MPI_SUM,
                  comm);
    std::int64_t counts[] = {s.left_tiles};
    std::int64_t widest[] = {s.left_elements, s.width};
    MPI_Allreduce(MPI_IN_PLACE, counts, 1, MPI_INT64_T, MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, widest, 2, MPI_INT64_T, MPI_MAX, comm);
    s.left_tiles = counts[0];
    s.left_elements = widest[0];
    s.width = widest[1];
    // This rank's groups, now summed over every rank's products.
    Tuples rhs, magnitude;
    for (const auto& [k, o] : held.at(c.node).tuples) {
        const auto at = index.find(k);
        if (at == index.end()) continue;  // compare() names the tile
        Shape shape = o.shape();
        shape[shape.size() - 1] = 1;
        Tile a(DType::F64, shape), m(DType::F64, shape);
        const double* from = flat.data() + at->second * slot;
        for (std::int64_t i = 0; i < a.elements(); ++i) {
            a.set(i, from[i]);
            m.set(i, from[groups.size() * slot + i]);
        }
        rhs.emplace(k, std::move(a));
        magnitude.emplace(k, std::move(m));
    }
    s.rhs = std::move(rhs);
    s.magnitude = std::move(magnitude);
}

std::string OutputVerification::compare(const Check& c, const std::vector<HeldTuples>& held,
                                        const Sides& s, std::int64_t terms,
                                        std::uint64_t seed) const {
    const Tuples& out = held.at(c.node).tuples;
    const std::string failed = "output " + c.output + " failed verification";
    if (!c.partials && s.rhs.size() != out.size())
        return failed + ": " + std::to_string(out.size()) + " tiles on this rank, its operands " +
               "make " + std::to_string(s.rhs.size());
    for (const auto& [k, t] : out) {
        const auto it = s.rhs.find(k);
        if (it == s.rhs.end()) return failed + " at tile " + k.str() + ": its operands make none";
        Tile copy;
        const Tile& o = host_view(t, copy);
        const std::size_t last = o.rank() - 1;
        const auto r = freivalds::sign_vector(
            seed, static_cast<std::size_t>(std::max<std::int64_t>(s.width, o.shape()[last])));
        const Tile lhs = freivalds::contract_dim(o, last, r, false);
        const Tile lhs_abs = freivalds::contract_dim(o, last, r, true);
        const Tile& m = s.magnitude.at(k);
        if (lhs.elements() != it->second.elements())
            return failed + " at tile " + k.str() + ": its shape differs from its operands'";
        for (std::int64_t i = 0; i < lhs.elements(); ++i) {
            const double a = lhs.get(i), b = it->second.get(i);
            // |O| |r| joins the magnitude: the rounding of O r itself.
            if (!freivalds::within_bound(a, b, m.get(i) + lhs_abs.get(i), terms, o.dtype()))
                return failed + " at tile " + k.str() + " (Freivalds check of #" +
                       std::to_string(c.node) +
                       ": |O r - L (R r)| = " + std::to_string(std::fabs(a - b)) + " in row " +
                       std::to_string(i) + ")";
        }
    }
    return "";
}

}  // namespace tra::runtime
