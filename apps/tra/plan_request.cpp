#include "plan_request.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>

#include "core/error.hpp"
#include "optimizer/tiling_search.hpp"
#include "workflow/machine_profile_file.hpp"
#include "workflow/placement_text.hpp"
#include "workflow/workflow_loader.hpp"

namespace tra::cli {

namespace {

bool is_rank(const std::string& s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "AB=cmm,C=local" -> {AB: cmm, C: local}; "A@1024x512" pins the tile of a tile: auto input.
void parse_pins(const std::string& text, optimizer::PlanRequest& request) {
    std::map<std::string, std::string>& pins = request.pins;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = text.find(',', start);
        const std::string item = text.substr(start, comma - start);
        if (const auto at = item.find('@');
            at != std::string::npos && item.find('=') == std::string::npos) {
            const auto tile = parse_tile_text(item.substr(at + 1));
            if (at == 0 || !tile)
                throw Error("--plan '" + text +
                            "': a tiling pin is INPUT@SIZExSIZE..., such as "
                            "A@1024x512, got '" +
                            item + "'");
            if (!request.tiling_pins.emplace(item.substr(0, at), *tile).second)
                throw Error("--plan '" + text + "' pins the tiling of " + item.substr(0, at) +
                            " twice");
            if (comma == std::string::npos) break;
            start = comma + 1;
            continue;
        }
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
            throw Error("--plan '" + text +
                        "': expected a rank such as 2, or pins such as "
                        "'C=cmm', 'AB=bcast-left,C=local' or 'A@1024x512', got '" +
                        item + "'");
        if (!pins.emplace(item.substr(0, eq), item.substr(eq + 1)).second)
            throw Error("--plan '" + text + "' pins " + item.substr(0, eq) + " twice");
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
}

}  // namespace

void apply_plan_flag(const std::string& text, optimizer::PlanRequest& request) {
    if (text.empty()) return;
    if (!is_rank(text)) {
        parse_pins(text, request);
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
    request.time = time_model(flags.time, request.sites);
    request.memory_per_site = flags.memory_per_site;
    request.top = flags.top;
    return request;
}

optimizer::RankedPlans plan_workflow(const PlanFlags& flags) {
    workflow::LoadOptions load;
    load.max_tuples = flags.max_tuples;
    Program program = workflow::load_workflow(flags.workflow, load);
    const optimizer::PlanRequest request = plan_request(flags, program);
    for (const std::string& note : program.tiling_space.coarse_notes(request.sites))
        std::cerr << "tra: note: " << note << "\n";
    return optimizer::rank_tiled_plans(std::move(program),
                                       workflow::program_of_tiling(flags.workflow, load), request);
}

const optimizer::RankedPlan& choose_plan(const optimizer::RankedPlans& ranked,
                                         const PlanFlags& flags) {
    optimizer::PlanRequest pick;
    apply_plan_flag(flags.plan, pick);
    return optimizer::choose_plan(ranked, pick);
}

ia::MachineProfile machine_profile(const TimeFlags& flags) {
    if (!flags.machine.empty()) return workflow::load_machine_profile(flags.machine);
    if (const char* env = std::getenv("TRA_MACHINE"); env && *env)
        return workflow::load_machine_profile(env);
    return workflow::builtin_machine_profile();
}

ia::TimeModel time_model(const TimeFlags& flags, int sites, const std::vector<int>& host_of_site) {
    ia::TimeModel model;
    model.profile = machine_profile(flags);
    if (flags.flop_rate) {
        for (ia::DtypeRates* d : {&model.profile.f32, &model.profile.f64}) {
            d->loop_flops_per_second = *flags.flop_rate;
            if (d->lanes_flops_per_second > 0) d->lanes_flops_per_second = *flags.flop_rate;
            for (ia::LanesRate& l : d->lanes_by_count) l.flops_per_second = *flags.flop_rate;
            for (ia::GemmRate& g : d->gemm) g.flops_per_second = *flags.flop_rate;
            // Every call's flops at that rate, nothing else.
            d->gemm_operand_excess_bytes_per_second = d->gemm_result_excess_bytes_per_second = 0;
            d->gemm_shapes = {};
        }
    }
    if (flags.bandwidth) {
        // Both links, measured or not, both directions at once: the flag states what the
        // network does.
        model.profile.across_hosts = model.profile.across_hosts_or_default();
        model.profile.across_hosts.measured = true;
        for (ia::LinkRates* link : {&model.profile.same_host, &model.profile.across_hosts}) {
            link->bytes_per_second = *flags.bandwidth;
            link->duplex_bytes_per_second = 0;
        }
    }
    if (!host_of_site.empty())
        model.host_of_site = host_of_site;
    else if (flags.ranks_per_host)
        model.host_of_site = ia::TimeModel::blocked_hosts(sites, *flags.ranks_per_host);
    return model;
}

std::string machine_line(const ia::MachineProfile& profile) {
    if (profile.source == "built-in")
        return "machine profile: built-in default (no --machine or TRA_MACHINE; `tra calibrate "
               "-o FILE` measures this machine)";
    return "machine profile: " + profile.name + " (" + profile.source + ", " +
           profile.content_hash + ")";
}

workflow::RankedBy ranked_by(const optimizer::RankedPlans& ranked, optimizer::CostModel cost) {
    return {optimizer::cost_name(cost), ranked.profile.name, ranked.profile.content_hash};
}

void write_machine_json(JsonWriter& j, const ia::MachineProfile& profile) {
    j.key("machine").begin_object();
    j.field("name", profile.name)
        .field("source", profile.source)
        .field("content_hash", profile.content_hash);
    j.end_object();
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
