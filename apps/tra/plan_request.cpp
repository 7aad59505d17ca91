#include "plan_request.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "core/error.hpp"
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

}  // namespace

void apply_plan_flag(const std::string& text, optimizer::PlanRequest& request) {
    if (text.empty()) return;
    if (!is_rank(text)) {
        request.pins = parse_pins(text);
        return;
    }
    // Digits only: a rank. One too long to count is beyond any list, which choose_plan refuses
    // saying how many plans there are.
    const std::string digits = text.substr(std::min(text.find_first_not_of('0'), text.size()));
    request.rank = digits.empty()       ? 0
                   : digits.size() > 18 ? std::numeric_limits<std::size_t>::max()
                                        : std::stoull(digits);
}

void apply_input_placements(const std::vector<std::string>& items,
                            optimizer::PlanRequest& request) {
    for (const std::string& item : items) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            throw Error("--input-placement '" + item +
                        "': expected INPUT=PLACEMENT with an input "
                        "of the workflow, e.g. A=Part[1]");
        const auto placement = workflow::parse_placement(item.substr(eq + 1));
        if (!placement)
            throw Error("--input-placement '" + item + "': unknown placement '" +
                        item.substr(eq + 1) + "'; " + workflow::placement_syntax());
        request.input_placements.insert_or_assign(item.substr(0, eq), *placement);
    }
}

optimizer::PlanRequest plan_request(const PlanFlags& flags, const Program& program) {
    optimizer::PlanRequest request;
    if (flags.sites) {
        request.sites = *flags.sites;
    } else if (program.sites) {
        request.sites = *program.sites;
    } else {
        throw Error("no site count: pass --sites S or give the workflow a sites: field",
                    {flags.workflow, 0, 0, "sites"});
    }
    apply_plan_flag(flags.plan, request);
    apply_input_placements(flags.input_placements, request);
    request.cost = flags.cost;
    request.rates = flags.rates;
    request.memory_per_site = flags.memory_per_site;
    request.top = flags.top;
    return request;
}

optimizer::RankedPlans plan_workflow(const PlanFlags& flags) {
    Program program = workflow::load_workflow(flags.workflow);
    const optimizer::PlanRequest request = plan_request(flags, program);
    return optimizer::rank_plans(std::move(program), request);
}

const optimizer::RankedPlan& choose_plan(const optimizer::RankedPlans& ranked,
                                         const PlanFlags& flags) {
    optimizer::PlanRequest pick;
    apply_plan_flag(flags.plan, pick);
    return optimizer::choose_plan(ranked, pick);
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

}  // namespace tra::cli
