#include "runtime/output_verification.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>

#include "core/error.hpp"
#include "runtime/freivalds.hpp"
#include "runtime/join_aggregate.hpp"
#include "runtime/local_step.hpp"

namespace tra::runtime {

namespace {

// The dimension of the right operand that becomes the last dimension of K(L, R) and appears in
// no other operand, so that K(L, R) r == K(L, R r) with r contracted there; nullopt when the
// kernel is not bilinear in that way (then the output is recomputed instead).
std::optional<std::size_t> freivalds_dim(const kernels::KernelCall& k) {
    if (k.name() == "matmul" || k.name() == "matmul_tn") return 1;
    if (k.name() == "matmul_nt") return 0;
    if (k.name() != "einsum") return std::nullopt;
    const kernels::KernelParams& p = k.params();
    if (p.join_op != "mul" || p.agg_op != "add") return std::nullopt;  // not a sum of products
    const auto comma = p.spec.find(','), arrow = p.spec.find("->");
    if (comma == std::string::npos || arrow == std::string::npos || arrow + 2 >= p.spec.size())
        return std::nullopt;
    const std::string left = p.spec.substr(0, comma), right = p.spec.substr(comma + 1, arrow - comma - 1);
    const char last = p.spec.back();
    if (left.find(last) != std::string::npos) return std::nullopt;
    if (std::count(right.begin(), right.end(), last) != 1) return std::nullopt;
    return right.find(last);
}

// A copy in host memory where the tile lives on the GPU (the check runs on the CPU).
Tile on_host(const Tile& t) { return t.on_device() ? t.to(Residence::Host) : Tile(t); }

std::string where(const std::string& output, const Key& k) {
    return "output " + output + " failed verification at tile " + k.str();
}

}  // namespace

OutputVerification::OutputVerification(const ia::Plan& plan,
                                       const std::vector<std::optional<ia::IaNodeId>>& fused)
    : plan_(&plan), fused_(&fused) {
    for (const Output& o : plan.program().outputs) {
        Check c;
        c.output = plan.program().node(o.node).name;
        const auto r = plan.result(o.node);
        if (!r) throw Error("the plan has no result for output " + c.output, {}, ErrorKind::Failed);
        c.node = *r;
        const ia::IaNode& n = plan.node(c.node);
        if (n.op == ia::IaOp::Input || ia::is_enforcer(n.op)) {
            c.reason = "its last operator #" + std::to_string(n.id) + " " + ia::op_name(n.op) +
                       " computes nothing to check";
        } else if (!n.inputs.empty() && fused[n.inputs[0]]) {
            c.join = n.inputs[0];
            c.method = Method::Recompute;
            const auto* join = std::get_if<JoinOp>(&plan.logical(*c.join));
            const auto* agg = std::get_if<AggregateOp>(&plan.logical(c.node));
            if (join && agg && agg->kernel.name() == "add" && !n.replicated)
                if (const auto d = freivalds_dim(join->kernel)) {
                    c.method = Method::Freivalds;
                    c.right_dim = *d;
                }
            for (auto in : plan.node(*c.join).inputs) kept_.push_back(in);
        } else {
            c.method = Method::Recompute;
            for (auto in : n.inputs) kept_.push_back(in);
        }
        checks_.push_back(std::move(c));
    }
    std::sort(kept_.begin(), kept_.end());
    kept_.erase(std::unique(kept_.begin(), kept_.end()), kept_.end());
}

std::string OutputVerification::check(std::vector<HeldTuples>& held, ia::Site me,
                                      std::uint64_t seed) const {
    for (const Check& c : checks_) {
        std::string problem;
        if (c.method == Method::Freivalds) problem = freivalds(c, held, seed);
        if (c.method == Method::Recompute) problem = recompute(c, held, me);
        if (!problem.empty()) return problem;
    }
    return "";
}

std::string OutputVerification::freivalds(const Check& c, std::vector<HeldTuples>& held,
                                          std::uint64_t seed) const {
    const ia::IaNode& j = plan_->node(*c.join);
    const auto& join = std::get<JoinOp>(plan_->logical(j.id));
    const auto& agg = std::get<AggregateOp>(plan_->logical(c.node));
    const Tuples& out = held.at(c.node).tuples;
    // r spans the widest tile; its prefix serves narrower (edge) tiles.
    std::size_t width = 0;
    for (const auto& [k, t] : held.at(j.inputs[1]).tuples)
        if (c.right_dim < t.rank())
            width = std::max(width, static_cast<std::size_t>(t.shape()[c.right_dim]));
    const std::vector<double> r = freivalds::sign_vector(seed, width);
    // The right operand with r applied first, and |L|, |R| |r| for the bound.
    Tuples left, left_abs, right, right_abs;
    std::int64_t left_elements = 0;
    for (const auto& [k, t] : held.at(j.inputs[0]).tuples) {
        Tile h = on_host(t);
        left_elements = std::max(left_elements, h.elements());
        left_abs.emplace(k, freivalds::absolute(h));
        left.emplace(k, std::move(h));
    }
    for (const auto& [k, t] : held.at(j.inputs[1]).tuples) {
        const Tile h = on_host(t);
        right.emplace(k, freivalds::contract_dim(h, c.right_dim, r, false));
        right_abs.emplace(k, freivalds::contract_dim(h, c.right_dim, r, true));
    }
    const std::size_t arity = plan_->relation(j.inputs[1]).type.key_arity;
    const Node& jn = plan_->origin(j.id);
    const Node& an = plan_->origin(c.node);
    const Tuples rhs = join_aggregate_tuples(jn, join, an, agg, left, right, arity);
    const Tuples mag = join_aggregate_tuples(jn, join, an, agg, left_abs, right_abs, arity);
    if (rhs.size() != out.size())
        return "output " + c.output + " failed verification: " + std::to_string(out.size()) +
               " tiles on this rank, its operands make " + std::to_string(rhs.size());
    // Terms summed into one element, counted generously: every product's inner extent is at
    // most a left tile's elements, a group has at most as many products as left tiles.
    const auto n = static_cast<std::int64_t>(left.size() + 1) * left_elements +
                   static_cast<std::int64_t>(width);
    for (const auto& [k, t] : out) {
        const auto it = rhs.find(k);
        if (it == rhs.end()) return where(c.output, k) + ": its operands make no such tile";
        const Tile o = on_host(t);
        const std::size_t last = o.rank() - 1;
        const Tile lhs = freivalds::contract_dim(o, last, r, false);
        const Tile lhs_abs = freivalds::contract_dim(o, last, r, true);
        const Tile& m = mag.at(k);
        if (lhs.elements() != it->second.elements())
            return where(c.output, k) + ": its shape differs from its operands'";
        for (std::int64_t i = 0; i < lhs.elements(); ++i) {
            const double a = lhs.get(i), b = it->second.get(i);
            const double bound = m.get(i) + lhs_abs.get(i);
            if (!freivalds::within_bound(a, b, bound, n, o.dtype()))
                return where(c.output, k) + " (Freivalds check of #" + std::to_string(c.node) +
                       ": |O r - L (R r)| = " + std::to_string(std::fabs(a - b)) +
                       " at element " + std::to_string(i) + ")";
        }
    }
    return "";
}

std::string OutputVerification::recompute(const Check& c, std::vector<HeldTuples>& held,
                                          ia::Site me) const {
    // A fused join computes its aggregate's tuples; otherwise the node itself runs again.
    HeldTuples again;
    const ia::IaNode& n = plan_->node(c.join ? *c.join : c.node);
    compute_locally(*plan_, n, held, me, *fused_, again);
    const Tuples& out = held.at(c.node).tuples;
    if (again.tuples.size() != out.size())
        return "output " + c.output + " failed verification: " + std::to_string(out.size()) +
               " tiles on this rank, recomputing #" + std::to_string(c.node) + " makes " +
               std::to_string(again.tuples.size());
    for (const auto& [k, t] : out) {
        const auto it = again.tuples.find(k);
        if (it == again.tuples.end()) return where(c.output, k) + ": recomputing makes no such tile";
        const Tile a = on_host(t), b = on_host(it->second);
        if (a.elements() != b.elements())
            return where(c.output, k) + ": its shape differs from the recomputed tile's";
        // The same code on the same operands: equal up to a threaded BLAS's summation order.
        const double eps = a.dtype() == DType::F32 ? std::numeric_limits<float>::epsilon()
                                                   : std::numeric_limits<double>::epsilon();
        for (std::int64_t i = 0; i < a.elements(); ++i) {
            const double x = a.get(i), y = b.get(i);
            if (x == y || (std::isnan(x) && std::isnan(y))) continue;
            if (std::fabs(x - y) <= 64 * eps * std::max(std::fabs(x), std::fabs(y))) continue;
            return where(c.output, k) + " (recomputing #" + std::to_string(c.node) + " " +
                   ia::op_name(plan_->node(c.node).op) + " gives " + std::to_string(y) +
                   " at element " + std::to_string(i) + ", the run holds " + std::to_string(x) +
                   ")";
        }
    }
    return "";
}

std::string OutputVerification::summary() const {
    std::string line = "verify: passed:";
    bool first = true;
    for (const Check& c : checks_) {
        const std::string op = "#" + std::to_string(c.node) + " " +
                               ia::op_name(plan_->node(c.node).op);
        std::string item;
        if (c.method == Method::Freivalds) item = c.output + " (Freivalds check of " + op + ")";
        if (c.method == Method::Recompute) item = c.output + " (recomputed " + op + ")";
        if (c.method == Method::None) item = c.output + " not verified: " + c.reason;
        line += (first ? " " : "; ") + item;
        first = false;
    }
    return line;
}

}  // namespace tra::runtime
