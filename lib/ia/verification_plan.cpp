#include "ia/verification_plan.hpp"

#include <algorithm>
#include <variant>

#include "core/error.hpp"
#include "ia/fused_joins.hpp"
#include "ia/operator_spec.hpp"
#include "tra/einsum_lowering.hpp"

namespace tra::ia {

namespace {

// A two-operand sum of products (join mul, agg add) as an einsum spec; nullopt for any other
// kernel. The kernel's spec was checked when the program was built.
std::optional<EinsumSpec> sum_of_products(const kernels::KernelCall& k) {
    const kernels::KernelParams& p = k.params();
    if (k.name() != "einsum" || p.join_op != "mul" || p.agg_op != "add") return std::nullopt;
    EinsumSpec spec = EinsumSpec::parse(p.spec);
    if (spec.operands.size() != 2 || spec.output.empty()) return std::nullopt;
    return spec;
}

// The dimension of the right operand that becomes the last dimension of K(L, R) and appears in
// no other operand, so that K(L, R) r == K(L, R r) with r contracted there; nullopt when the
// kernel is not bilinear in that way (then the output is recomputed instead).
std::optional<std::size_t> freivalds_dim(const kernels::KernelCall& k) {
    if (k.name() == "matmul" || k.name() == "matmul_tn") return 1;
    if (k.name() == "matmul_nt") return 0;
    const auto spec = sum_of_products(k);
    if (!spec) return std::nullopt;
    const std::string &left = spec->operands[0], &right = spec->operands[1];
    const char last = spec->output.back();
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
    const auto spec = sum_of_products(k);
    if (!spec) return std::nullopt;
    const std::string &left = spec->operands[0], &right = spec->operands[1], &out = spec->output;
    if (left.size() != 2 || right.size() != 2 || out.size() != 2) return std::nullopt;
    if (left[0] == left[1] || right[0] == right[1]) return std::nullopt;
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

// Whether recomputing `n` may run a few of its first operand's tuples at a time: where every
// output tuple comes from one tuple of the first operand (a map or filter, or a join that is
// neither fused with its aggregate nor of a relation with itself), the recomputations of the
// operand's chunks make exactly its output.
bool recomputes_in_chunks(const Plan& plan, const IaNode& n,
                          const std::vector<std::optional<IaNodeId>>& fused) {
    if (n.replicated || std::holds_alternative<FillOp>(plan.logical(n.id))) return false;
    if (n.op == IaOp::Map || n.op == IaOp::LocalFilter) return true;
    return n.op == IaOp::LocalJoin && !fused[n.id] && n.inputs.at(0) != n.inputs.at(1);
}

}  // namespace

VerificationPlan plan_verification(const Plan& plan) {
    const std::vector<std::optional<IaNodeId>> fused = fused_joins(plan);
    VerificationPlan v;
    auto add_kept = [&](IaNodeId id) {
        for (auto in : plan.node(id).inputs) v.kept.push_back(in);
    };
    // The relations checked: every output's once (a relation written twice, or observed every K
    // iterations of a loop, is one check), then a loop's carried steps, whose values reach the
    // outputs of later iterations.
    std::vector<std::pair<NodeId, std::string>> checked;
    auto check = [&](NodeId tra, std::string name) {
        for (const auto& [id, _] : checked)
            if (id == tra) return;
        checked.emplace_back(tra, std::move(name));
    };
    const Program& program = plan.program();
    for (const Output& o : program.outputs) check(o.node, program.node(o.node).name);
    if (program.repeat)
        for (const Carry& c : program.repeat->carry)
            check(c.step,
                  program.node(c.step).name + " (carried to " + program.node(c.input).name + ")");
    for (const auto& [tra, name] : checked) {
        OutputCheck c;
        c.output = name;
        const auto r = plan.result(tra);
        if (!r) throw Error("the plan has no result for output " + c.output, {}, ErrorKind::Failed);
        c.node = *r;
        const IaNode& n = plan.node(c.node);
        if (n.op == IaOp::Input || is_enforcer(n.op)) {
            c.reason = "its last operator #" + std::to_string(n.id) + " " + op_name(n.op) +
                       " computes nothing to check";
            v.checks.push_back(std::move(c));
            continue;
        }
        // The node folding a contraction's products: the output's aggregate itself (its join
        // fused into it), or a partial aggregate the exchanges before it bring partials from.
        std::optional<IaNodeId> folds;
        const auto* agg = std::get_if<AggregateOp>(&plan.logical(c.node));
        if (agg && agg->kernel.name() == "add" && !n.replicated && !n.inputs.empty()) {
            if (fused[n.inputs[0]]) {
                folds = c.node;
            } else if (plan.holds_partials(n.inputs[0])) {
                IaNodeId m = n.inputs[0];
                while (is_enforcer(plan.node(m).op)) m = plan.node(m).inputs.at(0);
                if (operator_spec(plan.node(m).op).makes_partials &&
                    fused[plan.node(m).inputs.at(0)])
                    folds = m;
            }
        }
        if (folds) {
            const IaNodeId j = plan.node(*folds).inputs.at(0);
            const auto* join = std::get_if<JoinOp>(&plan.logical(j));
            const auto* fold = std::get_if<AggregateOp>(&plan.logical(*folds));
            const auto d = join ? freivalds_dim(join->kernel) : std::nullopt;
            if (fold && fold->kernel.name() == "add" && d) {
                c.method = VerifyMethod::Freivalds;
                c.join = j;
                c.right_dim = *d;
                c.left_dim = matrix_left_dim(join->kernel);
                add_kept(j);
            }
        }
        if (c.method == VerifyMethod::None) {
            c.method = VerifyMethod::Recompute;
            // A fused join computes its aggregate's tuples: recomputing reads the join's inputs.
            if (fused[n.inputs.at(0)]) c.join = n.inputs[0];
            add_kept(c.join ? *c.join : c.node);
            c.in_chunks = recomputes_in_chunks(plan, plan.node(c.join ? *c.join : c.node), fused);
        }
        v.checks.push_back(std::move(c));
    }
    std::sort(v.kept.begin(), v.kept.end());
    v.kept.erase(std::unique(v.kept.begin(), v.kept.end()), v.kept.end());
    v.scratch_per_site.assign(static_cast<std::size_t>(plan.sites()), 0);
    for (const OutputCheck& c : v.checks) {
        if (c.method != VerifyMethod::Recompute) continue;
        const auto& resident = plan.node(c.node).cost.resident;
        for (std::size_t s = 0; s < v.scratch_per_site.size() && s < resident.size(); ++s)
            v.scratch_per_site[s] = std::max(v.scratch_per_site[s], resident[s]);
    }
    return v;
}

}  // namespace tra::ia
