#include "optimizer/planner.hpp"

#include <algorithm>
#include <variant>

#include "core/error.hpp"
#include "ia/peak_memory.hpp"
#include "ia/verification_plan.hpp"

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

}  // namespace

RankedPlans rank_plans(Program program, const PlanRequest& request) {
    if (request.sites < 1) throw Error("--sites must be at least 1");
    RankedPlans ranked;
    RewriteResult rewritten = apply_logical_rewrites(program);
    ranked.program = std::make_unique<Program>(std::move(rewritten.program));
    ranked.rewrites = std::move(rewritten.log);
    ranked.sites = request.sites;
    ranked.profile = request.time.profile;
    const Program& p = *ranked.program;

    SearchOptions options;
    // Every candidate is ranked here, under the requested model and budget, then cut to top.
    options.top_k = static_cast<std::size_t>(-1);
    options.pins = request.pins;
    options.input_placements = input_placements_by_id(p, request.input_placements);
    options.cost = request.cost;
    options.time = request.time;
    options.shared_costs = request.shared_costs;
    // A tiling search plans many tilings: each keeps the narrowest beam.
    if (request.shared_costs) options.beam_extensions = 0;
    // The search returns its plans in the request's order already.
    ia::ScratchMemo memo;  // the plans share their joins' kernels and shapes
    for (RankedPlan& plan : search_plans(p, ranked.sites, options)) {
        if (!request.memory_per_site && ranked.plans.size() >= request.top) break;  // all kept
        // The peak with the kernels' scratch as the run's kernels will plan it (the search
        // ranks without it), and with what --verify keeps and allocates.
        const ia::PlanScratch scratch =
            ia::kernel_scratch(plan.plan, request.time.profile, &memo, 0, request.tiles);
        if (request.verify || ia::any_scratch(scratch)) {
            const ia::VerificationPlan v =
                request.verify ? ia::plan_verification(plan.plan) : ia::VerificationPlan{};
            const std::vector<std::int64_t> peaks =
                ia::peak_per_site(plan.plan, v.kept, v.scratch_per_site, &scratch);
            plan.totals.peak_per_site = peaks;
            plan.totals.peak_bytes = *std::max_element(peaks.begin(), peaks.end());
        }
        if (request.memory_per_site && plan.totals.peak_bytes > *request.memory_per_site) {
            ranked.dropped.push_back({plan.name, plan.totals.peak_bytes});
        } else if (ranked.plans.size() < request.top) {
            ranked.seconds.push_back(plan.seconds);
            ranked.plans.push_back(std::move(plan));
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
