#include "plan_choice.hpp"

#include <algorithm>
#include <cstdio>

#include "optimizer/logical_rewrites.hpp"
#include "workflow/placement_text.hpp"
#include "workflow/workflow_loader.hpp"

namespace tra::cli {

namespace {

bool is_rank(const std::string& s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "AB=cmm,C=local" -> {AB: cmm, C: local}.
std::map<std::string, std::string> parse_pins(const std::string& text) {
    std::map<std::string, std::string> pins;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = text.find(',', start);
        const std::string item = text.substr(start, comma - start);
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
            throw Error("--plan '" + text +
                        "': expected a rank such as 2, or pins such as "
                        "'C=cmm' or 'AB=bcast-left,C=local', got '" +
                        item + "'");
        if (!pins.emplace(item.substr(0, eq), item.substr(eq + 1)).second)
            throw Error("--plan '" + text + "' pins " + item.substr(0, eq) + " twice");
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return pins;
}

std::map<NodeId, ia::Placement> parse_input_placements(const Program& p,
                                                       const std::vector<std::string>& items) {
    std::map<NodeId, ia::Placement> out;
    for (const std::string& item : items) {
        const auto eq = item.find('=');
        const std::string name = item.substr(0, eq);
        const auto id = p.find(name);
        if (eq == std::string::npos || !id || !std::holds_alternative<InputOp>(p.node(*id).op))
            throw Error("--input-placement '" + item +
                        "': expected INPUT=PLACEMENT with an input "
                        "of the workflow, e.g. A=Part[1]");
        const auto placement = workflow::parse_placement(item.substr(eq + 1));
        if (!placement)
            throw Error("--input-placement '" + item + "': unknown placement '" +
                        item.substr(eq + 1) + "'; " + workflow::placement_syntax());
        out.emplace(*id, *placement);
    }
    return out;
}

// A plan with its estimated seconds, computed once for ranking.
struct Candidate {
    optimizer::RankedPlan plan;
    double seconds = 0;
};

bool cheaper(const Candidate& a, const Candidate& b, CostModel m) {
    const auto& x = a.plan.totals;
    const auto& y = b.plan.totals;
    if (m == CostModel::Paper && x.paper_floats != y.paper_floats)
        return x.paper_floats < y.paper_floats;
    if (m == CostModel::Time && a.seconds != b.seconds) return a.seconds < b.seconds;
    if (x.payload_bytes != y.payload_bytes) return x.payload_bytes < y.payload_bytes;
    if (x.paper_floats != y.paper_floats) return x.paper_floats < y.paper_floats;
    return a.plan.name < b.plan.name;
}

}  // namespace

std::string cost_name(CostModel m) {
    switch (m) {
        case CostModel::Exact:
            return "exact";
        case CostModel::Paper:
            return "paper";
        case CostModel::Time:
            return "time";
    }
    return "exact";
}

std::string human_bytes(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (bytes >= 1024 && u < 5) {
        bytes /= 1024;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
    return buf;
}

RankedPlans rank_plans(const PlanRequest& request) {
    RankedPlans ranked;
    // Logical rewrites (filter fusion and push-down) never raise a cost, so they run before the
    // search; their log (RewriteResult::log) is for explain to list.
    optimizer::RewriteResult rewritten =
        optimizer::apply_logical_rewrites(workflow::load_workflow(request.workflow));
    ranked.program = std::make_unique<Program>(std::move(rewritten.program));
    ranked.rewrites = std::move(rewritten.log);
    const Program& p = *ranked.program;
    if (request.sites) {
        ranked.sites = *request.sites;
    } else if (p.sites) {
        ranked.sites = *p.sites;
    } else {
        throw Error("no site count: pass --sites S or give the workflow a sites: field",
                    {request.workflow, 0, 0, "sites"});
    }
    if (ranked.sites < 1) throw Error("--sites must be at least 1");
    optimizer::SearchOptions options;
    // Every candidate is ranked here, under the requested model and budget, then cut to --top.
    options.top_k = static_cast<std::size_t>(-1);
    if (!request.plan.empty() && !is_rank(request.plan)) options.pins = parse_pins(request.plan);
    options.input_placements = parse_input_placements(p, request.input_placements);
    std::vector<Candidate> all;
    for (auto& plan : optimizer::search_plans(p, ranked.sites, options)) {
        const double seconds = ia::estimated_seconds(plan.plan, request.rates);
        all.push_back({std::move(plan), seconds});
    }
    std::stable_sort(all.begin(), all.end(),
                     [&](const auto& a, const auto& b) { return cheaper(a, b, request.cost); });
    for (auto& c : all) {
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

const optimizer::RankedPlan& choose_plan(const RankedPlans& ranked, const std::string& plan) {
    if (ranked.plans.empty()) throw Error("the workflow has no plan to choose from");
    if (!is_rank(plan)) return ranked.plans.front();
    const std::size_t rank = std::stoul(plan);
    if (rank < 1 || rank > ranked.plans.size())
        throw Error("--plan " + plan + ": there are " + std::to_string(ranked.plans.size()) +
                    " plans (raise --top to see more)");
    return ranked.plans[rank - 1];
}

}  // namespace tra::cli
