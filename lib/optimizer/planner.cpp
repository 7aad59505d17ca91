#include "optimizer/planner.hpp"

#include <algorithm>
#include <variant>

#include "core/error.hpp"

namespace tra::optimizer {

std::string cost_name(CostModel model) {
    switch (model) {
        case CostModel::Exact:
            return "exact";
        case CostModel::Paper:
            return "paper";
        case CostModel::Time:
            return "time";
    }
    return "exact";
}

namespace {

std::map<NodeId, ia::Placement> input_placements_by_id(
    const Program& p, const std::map<std::string, ia::Placement>& by_name) {
    std::map<NodeId, ia::Placement> out;
    for (const auto& [name, placement] : by_name) {
        const auto id = p.find(name);
        if (!id || !std::holds_alternative<InputOp>(p.node(*id).op))
            throw Error("a starting placement is given for '" + name +
                        "', which is not an input of the workflow");
        out.emplace(*id, placement);
    }
    return out;
}

// A plan with its estimated seconds, computed once for ranking.
struct Candidate {
    RankedPlan plan;
    double seconds = 0;
};

}  // namespace

RankedPlans rank_plans(Program program, const PlanRequest& request) {
    if (request.sites < 1) throw Error("--sites must be at least 1");
    RankedPlans ranked;
    RewriteResult rewritten = apply_logical_rewrites(program);
    ranked.program = std::make_unique<Program>(std::move(rewritten.program));
    ranked.rewrites = std::move(rewritten.log);
    ranked.sites = request.sites;
    const Program& p = *ranked.program;

    SearchOptions options;
    // Every candidate is ranked here, under the requested model and budget, then cut to top.
    options.top_k = static_cast<std::size_t>(-1);
    options.pins = request.pins;
    options.input_placements = input_placements_by_id(p, request.input_placements);
    std::vector<Candidate> all;
    for (auto& plan : search_plans(p, ranked.sites, options)) {
        const double seconds = ia::estimated_seconds(plan.plan, request.rates);
        all.push_back({std::move(plan), seconds});
    }
    std::stable_sort(all.begin(), all.end(), [&](const Candidate& a, const Candidate& b) {
        return cheaper(request.cost, a.plan.totals, a.seconds, a.plan.name, b.plan.totals,
                       b.seconds, b.plan.name);
    });
    for (Candidate& c : all) {
        if (request.memory_per_site && c.plan.totals.peak_bytes > *request.memory_per_site) {
            ranked.dropped.push_back({c.plan.name, c.plan.totals.peak_bytes});
        } else if (ranked.plans.size() < request.top) {
            ranked.plans.push_back(std::move(c.plan));
            ranked.seconds.push_back(c.seconds);
        }
    }
    if (ranked.plans.empty() && !ranked.dropped.empty())
        throw Error("no plan fits in --memory-per-site " +
                    std::to_string(*request.memory_per_site) + " bytes: the cheapest, " +
                    ranked.dropped.front().name + ", needs " +
                    std::to_string(ranked.dropped.front().peak_bytes) + " bytes per site");
    return ranked;
}

const RankedPlan& choose_plan(const RankedPlans& ranked, const PlanRequest& request) {
    if (ranked.plans.empty()) throw Error("the workflow has no plan to choose from");
    if (!request.rank) return ranked.plans.front();
    const std::size_t rank = *request.rank;
    if (rank < 1 || rank > ranked.plans.size())
        throw Error("--plan " + std::to_string(rank) + ": there are " +
                    std::to_string(ranked.plans.size()) + " plans (raise --top to see more)");
    return ranked.plans[rank - 1];
}

}  // namespace tra::optimizer
