#include "optimizer/ia_rules.hpp"

#include <optional>
#include <tuple>

#include "core/error.hpp"

namespace tra::optimizer {

namespace {

// A guard like the logical rewrites': every accepted rewrite lowers (payload, total, nodes) in
// the product order of non-negative integers, so this is never reached.
constexpr std::size_t kMaxIaApplications = 10000;

struct Costed {
    ia::Plan plan;
    ia::PlanTotals totals;
};

std::optional<Costed> costed(std::optional<ia::Plan> plan) {
    if (!plan) return std::nullopt;
    Checked<ia::PlanTotals> t = ia::try_annotate_costs(*plan);
    // Where some tuples are cannot be traced: not a plan we can judge.
    if (!t) return std::nullopt;
    return Costed{std::move(*plan), std::move(t).value()};
}

auto order_key(const Costed& c) {
    return std::make_tuple(c.totals.payload_bytes, c.totals.total_bytes(), c.plan.size());
}

Costed fixpoint(Costed current, RewriteLog& log, const std::vector<IaRule>& rules);

// The best accepted rewrite of `rule` anywhere in the plan (first node in plan order with one).
std::optional<Costed> apply_once(const Costed& current, const IaRule& rule,
                                 const std::vector<IaRule>& rules, RewriteLog& log) {
    std::vector<IaRule> cleanup;
    if (rule.explores)
        for (const IaRule& r : rules)
            if (!r.explores) cleanup.push_back(r);
    for (ia::IaNodeId at = 0; at < current.plan.size(); ++at) {
        std::optional<Costed> best;
        RewriteLog best_log;
        for (IaRewrite& rw : rule.try_at(current.plan, at)) {
            std::optional<Costed> next = costed(rw.draft.build());
            if (!next) continue;
            RewriteLog next_log = {{rule.id, rule.name, "#" + std::to_string(at), rw.detail}};
            if (rule.explores) *next = fixpoint(std::move(*next), next_log, cleanup);
            if (!ia_rewrite_improves(current.totals, current.plan.size(), next->totals,
                                     next->plan.size()))
                continue;
            if (!best || order_key(*next) < order_key(*best)) {
                best = std::move(next);
                best_log = std::move(next_log);
            }
        }
        if (best) {
            log.insert(log.end(), best_log.begin(), best_log.end());
            return best;
        }
    }
    return std::nullopt;
}

Costed fixpoint(Costed current, RewriteLog& log, const std::vector<IaRule>& rules) {
    for (std::size_t applied = 0; applied < kMaxIaApplications; ++applied) {
        std::optional<Costed> next;
        for (const IaRule& rule : rules)
            if ((next = apply_once(current, rule, rules, log))) break;
        if (!next) break;
        current = std::move(*next);
    }
    return current;
}

}  // namespace

bool ia_rewrite_improves(const ia::PlanTotals& a, std::size_t an, const ia::PlanTotals& b,
                         std::size_t bn) {
    if (b.payload_bytes > a.payload_bytes || b.total_bytes() > a.total_bytes()) return false;
    return b.payload_bytes < a.payload_bytes || b.total_bytes() < a.total_bytes() || bn < an;
}

bool moves_tuples(const ia::Plan& plan, ia::IaNodeId id) {
    return ia::is_enforcer(plan.node(id).op) && !plan.holds_partials(id);
}

const std::vector<IaRule>& ia_rules() {
    static const std::vector<IaRule> rules = {
        enforcer_chain_rule(), filter_enforcer_rule(),    map_enforcer_rule(),
        join_shuffle_rule(),   aggregate_in_place_rule(), preaggregate_rule(),
        join_strategy_rule(),
    };
    return rules;
}

const IaRule& ia_rule(const std::string& id) {
    for (const IaRule& r : ia_rules())
        if (r.id == id) return r;
    throw Error("internal: no physical rewrite rule '" + id + "'", {}, ErrorKind::Failed);
}

IaRewriteResult apply_ia_rules(const ia::Plan& plan, const std::vector<IaRule>& rules) {
    std::optional<Costed> start = costed(plan);
    if (!start)
        throw Error("internal: the plan to rewrite cannot be costed", {}, ErrorKind::Failed);
    RewriteLog log;
    Costed done = fixpoint(std::move(*start), log, rules);
    return {std::move(done.plan), std::move(done.totals), std::move(log)};
}

const std::vector<IaRule>& normalising_ia_rules() {
    static const std::vector<IaRule> normalising = [] {
        std::vector<IaRule> out;
        for (const IaRule& r : ia_rules())
            if (!r.changes_strategy) out.push_back(r);
        return out;
    }();
    return normalising;
}

std::optional<IaRewriteResult> normalise_plan(const ia::Plan& plan, const ia::PlanTotals& totals) {
    RewriteLog log;
    Costed done = fixpoint(Costed{plan, totals}, log, normalising_ia_rules());
    if (log.empty()) return std::nullopt;
    return IaRewriteResult{std::move(done.plan), std::move(done.totals), std::move(log)};
}

IaRewriteResult apply_ia_rules(const ia::Plan& plan) {
    return apply_ia_rules(plan, ia_rules());
}

}  // namespace tra::optimizer
