#include "optimizer/logical_rewrites.hpp"

namespace tra::optimizer {

namespace {

// A fixpoint guard: every rule strictly shrinks the program (R1-1, R1-2 on rekeys) or moves a
// filter or a transform strictly closer to the inputs (the others; a transform never moves back
// above a rekey, join or aggregate), so this is never reached on a terminating rule set; it
// stops a faulty new rule from looping forever.
constexpr std::size_t kMaxLogicalApplications = 10000;

}  // namespace

std::string RewriteRecord::str() const {
    return rule + " " + name + " at " + node + (detail.empty() ? "" : ": " + detail);
}

const std::vector<RewriteRule>& logical_rewrite_rules() {
    static const std::vector<RewriteRule> rules = {
        filter_fusion_rule(),
        filter_join_pushdown_rule(),
        filter_aggregate_pushdown_rule(),
        filter_map_pushdown_rule(),
        map_composition_rule(),
        map_join_pushdown_rule(),
        map_aggregate_pushdown_rule(),
    };
    return rules;
}

const RewriteRule& logical_rewrite_rule(const std::string& id) {
    for (const RewriteRule& r : logical_rewrite_rules())
        if (r.id == id) return r;
    throw Error("internal: no logical rewrite rule '" + id + "'", {}, ErrorKind::Failed);
}

std::optional<NodeId> sole_use_operand(const Program& p, const Steps& steps, NodeId at) {
    const Node& n = p.node(at);
    if (n.inputs.size() != 1) return std::nullopt;
    const NodeId in = n.inputs[0];
    const std::string& name = p.node(in).name;
    if (steps.uses(name) != 1 || steps.is_output(name)) return std::nullopt;
    return in;
}

RewriteResult apply_rewrites(const Program& program, const std::vector<RewriteRule>& rules) {
    RewriteResult r{program, {}};
    for (std::size_t applied = 0; applied < kMaxLogicalApplications; ++applied) {
        bool changed = false;
        for (const RewriteRule& rule : rules) {
            for (NodeId id = 0; id < r.program.nodes.size() && !changed; ++id) {
                std::optional<RuleApplication> app = rule.try_at(r.program, id);
                if (!app) continue;
                Checked<Program> built = build_steps(app->steps);
                // A rewritten program that does not type-check leaves this match alone.
                if (!built) continue;
                Program next = std::move(built).value();
                next.rewrites = r.program.rewrites;
                next.rewrites.push_back(rule.id + " at " + r.program.node(id).name);
                r.log.push_back({rule.id, rule.name, r.program.node(id).name, app->detail});
                r.program = std::move(next);
                changed = true;
            }
            if (changed) break;  // restart from the highest-priority rule
        }
        if (!changed) return r;
    }
    return r;
}

RewriteResult apply_logical_rewrites(const Program& program) {
    return apply_rewrites(program, logical_rewrite_rules());
}

}  // namespace tra::optimizer
