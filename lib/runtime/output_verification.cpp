#include "runtime/output_verification.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>

#include "core/error.hpp"
#include "ia/operator_spec.hpp"
#include "runtime/local_step.hpp"

namespace tra::runtime {

namespace {

[[noreturn]] void fail(const std::string& message) {
    throw Error(message, {}, ErrorKind::Failed);
}

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
    const std::string left = p.spec.substr(0, comma);
    const std::string right = p.spec.substr(comma + 1, arrow - comma - 1);
    const char last = p.spec.back();
    if (left.find(last) != std::string::npos) return std::nullopt;
    if (std::count(right.begin(), right.end(), last) != 1) return std::nullopt;
    return right.find(last);
}

// Where K(L, v) is a plain matrix-vector product: L's contracted dimension when L is a matrix
// multiplied with R as matmul does (matmul, matmul_nt: 1; matmul_tn: 0; an einsum of the same
// form, "ik,kj->ij", "ki,kj->ij", "ik,jk->ij", in any letters); nullopt otherwise.
std::optional<std::size_t> matrix_left_dim(const kernels::KernelCall& k) {
    if (k.name() == "matmul" || k.name() == "matmul_nt") return 1;
    if (k.name() == "matmul_tn") return 0;
    if (k.name() != "einsum" || k.params().join_op != "mul" || k.params().agg_op != "add")
        return std::nullopt;
    const std::string& spec = k.params().spec;
    const auto comma = spec.find(','), arrow = spec.find("->");
    if (comma != 2 || arrow != 5 || spec.size() != 9) return std::nullopt;
    const std::string left = spec.substr(0, 2), right = spec.substr(3, 2), out = spec.substr(7);
    if (left[0] == left[1] || right[0] == right[1] || out[0] == out[1]) return std::nullopt;
    // The contracted label: in L and R, not in the output; L's other one is the output's first.
    for (std::size_t d = 0; d < 2; ++d) {
        const char contracted = left[d], free = left[1 - d];
        if (right.find(contracted) != std::string::npos &&
            out.find(contracted) == std::string::npos && out[0] == free &&
            right.find(free) == std::string::npos && right.find(out[1]) != std::string::npos)
            return d;
    }
    return std::nullopt;
}

// The first element where the run's tile and the recomputed one differ beyond rounding. The
// same code on the same operands: equal up to a threaded BLAS's summation order.
template <class T>
std::optional<std::int64_t> first_difference(const Tile& a, const Tile& b) {
    const T* x = a.data<T>();
    const T* y = b.data<T>();
    const double eps = std::numeric_limits<T>::epsilon();
    for (std::int64_t i = 0; i < a.elements(); ++i) {
        if (x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i]))) continue;
        const double scale = std::max(std::fabs(double(x[i])), std::fabs(double(y[i])));
        if (std::fabs(double(x[i]) - double(y[i])) <= 64 * eps * scale) continue;
        return i;
    }
    return std::nullopt;
}

Tile on_host(const Tile& t) {
    return t.to(Residence::Host);
}

}  // namespace

OutputVerification::OutputVerification(const ia::Plan& plan,
                                       const std::vector<std::optional<ia::IaNodeId>>& fused,
                                       const std::vector<ia::SiteMap>& where)
    : plan_(&plan), fused_(&fused), where_(&where) {
    auto add_kept = [&](ia::IaNodeId id) {
        for (auto in : plan.node(id).inputs) kept_.push_back(in);
    };
    for (const Output& o : plan.program().outputs) {
        Check c;
        c.output = plan.program().node(o.node).name;
        const auto r = plan.result(o.node);
        if (!r) fail("the plan has no result for output " + c.output);
        c.node = *r;
        const ia::IaNode& n = plan.node(c.node);
        if (n.op == ia::IaOp::Input || ia::is_enforcer(n.op)) {
            c.reason = "its last operator #" + std::to_string(n.id) + " " + ia::op_name(n.op) +
                       " computes nothing to check";
            checks_.push_back(std::move(c));
            continue;
        }
        // The node folding a contraction's products: the output's aggregate itself (its join
        // fused into it), or a partial aggregate the exchanges before it bring partials from.
        std::optional<ia::IaNodeId> folds;
        const auto* agg = std::get_if<AggregateOp>(&plan.logical(c.node));
        if (agg && agg->kernel.name() == "add" && !n.replicated && !n.inputs.empty()) {
            if (fused[n.inputs[0]]) {
                folds = c.node;
            } else if (plan.holds_partials(n.inputs[0])) {
                ia::IaNodeId m = n.inputs[0];
                while (ia::is_enforcer(plan.node(m).op)) m = plan.node(m).inputs.at(0);
                if (ia::operator_spec(plan.node(m).op).makes_partials &&
                    fused[plan.node(m).inputs.at(0)])
                    folds = m;
            }
        }
        if (folds) {
            const ia::IaNodeId j = plan.node(*folds).inputs.at(0);
            const auto* join = std::get_if<JoinOp>(&plan.logical(j));
            const auto* fold = std::get_if<AggregateOp>(&plan.logical(*folds));
            const auto d = join ? freivalds_dim(join->kernel) : std::nullopt;
            if (fold && fold->kernel.name() == "add" && d) {
                c.method = Method::Freivalds;
                c.join = j;
                c.right_dim = *d;
                c.left_dim = matrix_left_dim(join->kernel);
                add_kept(j);
            }
        }
        if (c.method == Method::None) {
            c.method = Method::Recompute;
            // A fused join computes its aggregate's tuples: recomputing reads the join's inputs.
            if (fused[n.inputs.at(0)]) c.join = n.inputs[0];
            add_kept(c.join ? *c.join : c.node);
        }
        checks_.push_back(std::move(c));
    }
    std::sort(kept_.begin(), kept_.end());
    kept_.erase(std::unique(kept_.begin(), kept_.end()), kept_.end());
}

void OutputVerification::run(std::vector<HeldTuples>& held, ia::Site me, std::uint64_t seed,
                             const RankAgreement& agree, MPI_Comm comm) const {
    for (const Check& c : checks_) {
        if (c.method == Method::Recompute)
            agree.step([&] {
                const std::string problem = recompute(c, held, me);
                if (!problem.empty()) fail("verify: " + problem);
            });
        if (c.method != Method::Freivalds) continue;
        Sides sides;
        agree.step([&] { sides = contraction_sides(c, held, seed); });
        // Every rank got here (the step was agreed): the reduction cannot leave one waiting.
        sum_over_ranks(sides, comm);
        agree.step([&] {
            const std::string problem = compare(c, sides);
            if (!problem.empty()) fail("verify: " + problem);
        });
    }
}

std::string OutputVerification::recompute(const Check& c, std::vector<HeldTuples>& held,
                                          ia::Site me) const {
    HeldTuples again;
    compute_locally(*plan_, plan_->node(c.join ? *c.join : c.node), held, me, *fused_, again);
    const Tuples& out = held.at(c.node).tuples;
    const std::string failed = "output " + c.output + " failed verification";
    if (again.tuples.size() != out.size())
        return failed + ": " + std::to_string(out.size()) + " tiles on this rank, recomputing #" +
               std::to_string(c.node) + " makes " + std::to_string(again.tuples.size());
    for (const auto& [k, t] : out) {
        const auto it = again.tuples.find(k);
        if (it == again.tuples.end())
            return failed + " at tile " + k.str() + ": recomputing makes no such tile";
        const Tile a = t.on_device() ? on_host(t) : Tile();
        const Tile b = it->second.on_device() ? on_host(it->second) : Tile();
        const Tile& x = t.on_device() ? a : t;
        const Tile& y = it->second.on_device() ? b : it->second;
        if (x.shape() != y.shape())
            return failed + " at tile " + k.str() + ": its shape differs from the recomputed one";
        const auto i = x.dtype() == DType::F32 ? first_difference<float>(x, y)
                                               : first_difference<double>(x, y);
        if (i)
            return failed + " at tile " + k.str() + " (recomputing #" + std::to_string(c.node) +
                   " " + ia::op_name(plan_->node(c.node).op) + " gives " +
                   std::to_string(y.get(*i)) + " at element " + std::to_string(*i) +
                   ", the run holds " + std::to_string(x.get(*i)) + ")";
    }
    return "";
}

std::string OutputVerification::summary() const {
    std::string line = "verify: passed:";
    bool first = true;
    for (const Check& c : checks_) {
        const std::string op =
            "#" + std::to_string(c.node) + " " + ia::op_name(plan_->node(c.node).op);
        std::string item = c.output + " not verified: " + c.reason;
        if (c.method == Method::Freivalds)
            item = c.output + " (Freivalds check of " + op + " and its contraction #" +
                   std::to_string(*c.join) + ")";
        if (c.method == Method::Recompute) item = c.output + " (recomputed " + op + ")";
        line += (first ? " " : "; ") + item;
        first = false;
    }
    return line;
}

}  // namespace tra::runtime
