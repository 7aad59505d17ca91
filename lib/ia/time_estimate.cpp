#include "ia/time_estimate.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "ia/fused_joins.hpp"
#include "ia/operator_spec.hpp"

namespace tra::ia {

namespace {

double at(const std::vector<std::int64_t>& per_site, std::size_t s) {
    return s < per_site.size() ? static_cast<double>(per_site[s]) : 0.0;
}

double tile_bytes_of(const Plan& plan, IaNodeId id) {
    return static_cast<double>(plan.relation(id).type.tile_bytes());
}

// Tuples of node `id` held on site s.
double tuples_on(const Plan& plan, IaNodeId id, std::size_t s) {
    const double tile = tile_bytes_of(plan, id);
    return tile > 0 ? at(plan.node(id).cost.resident, s) / tile : 0.0;
}

// What one site of a node costs, before the busiest is chosen.
struct SiteWork {
    double compute = 0, memory = 0;
};

// The per-site work of every kind of node but enforcers.
class LocalWork {
public:
    LocalWork(const Plan& plan, const TimeModel& model)
        : plan_(plan), profile_(model.profile), fused_(fused_joins(plan)) {}

    SiteWork at_site(const IaNode& n, std::size_t s) const {
        const OperatorSpec& spec = operator_spec(n.op);
        if (spec.joins) return join(n, s);
        if (spec.group_by != nullptr) return aggregate(n, s);
        if (!n.logical || n.inputs.size() != 1) return {};
        const bool transform = std::holds_alternative<TransformOp>(*n.logical);
        if (!transform && !std::holds_alternative<TileOp>(*n.logical)) return {};
        // A transform or a cut reads its input tiles and writes its output tiles.
        const double calls = tuples_on(plan_, n.inputs[0], s);
        return {calls * profile_.kernel_call_seconds,
                pass(at(plan_.node(n.inputs[0]).cost.resident, s) + at(n.cost.resident, s))};
    }

private:
    double pass(double bytes) const { return bytes / profile_.memory_bytes_per_second; }

    SiteWork join(const IaNode& n, std::size_t s) const {
        const auto* op = n.logical ? std::get_if<JoinOp>(&*n.logical) : nullptr;
        if (!op) return {};
        const Shape shapes[] = {plan_.relation(n.inputs[0]).type.bound,
                                plan_.relation(n.inputs[1]).type.bound};
        const double calls = tuples_on(plan_, n.id, s);
        const double flops = static_cast<double>(op->kernel.flops(shapes));
        SiteWork w;
        w.compute = calls * profile_.kernel_call_seconds;
        if (flops == 0) {  // element-wise: a pass over both operands and the output
            w.memory = pass(calls * (tile_bytes_of(plan_, n.inputs[0]) +
                                     tile_bytes_of(plan_, n.inputs[1]) + tile_bytes_of(plan_, n.id)));
            return w;
        }
        const DtypeRates& rates = profile_.rates(plan_.relation(n.id).type.dtype);
        const std::optional<std::int64_t> gemms = op->kernel.gemm_calls(shapes);
        const double rate = gemms && *gemms > 0
                                ? rates.gemm_flops_per_second(flops / static_cast<double>(*gemms))
                                : rates.loop_flops_per_second;
        w.compute += calls * flops / rate;
        if (!fused_[n.id]) w.memory = pass(at(n.cost.resident, s));  // the products written
        return w;
    }

    SiteWork aggregate(const IaNode& n, std::size_t s) const {
        if (n.inputs.size() != 1) return {};
        const IaNodeId in = n.inputs[0];
        // Fused with its join, the products were added as the join's calls made them: no call
        // or pass of its own.
        if (fused_[in]) return {};
        return {tuples_on(plan_, in, s) * profile_.kernel_call_seconds,
                pass(at(plan_.node(in).cost.resident, s) + at(n.cost.resident, s))};
    }

    const Plan& plan_;
    const MachineProfile& profile_;
    std::vector<std::optional<IaNodeId>> fused_;
};

// Seconds per byte and per message on site s of `sites`, mixing the two links by the share of
// s's peers on other hosts.
struct LinkCost {
    double per_byte = 0, per_message = 0;
};

LinkCost link_cost(const TimeModel& model, std::size_t s, std::size_t sites) {
    const LinkRates& near = model.profile.same_host;
    const LinkRates& far = model.profile.across_hosts_or_default();
    double remote = 0;
    if (sites > 1 && s < model.host_of_site.size()) {
        const int host = model.host_of_site[s];
        const auto same = std::count(model.host_of_site.begin(), model.host_of_site.end(), host);
        remote = static_cast<double>(sites - static_cast<std::size_t>(same)) /
                 static_cast<double>(sites - 1);
    }
    return {(1 - remote) / near.bytes_per_second + remote / far.bytes_per_second,
            (1 - remote) * near.latency_seconds + remote * far.latency_seconds};
}

double communication(const Transfer& t, const LinkCost& link, std::size_t s) {
    const double sent = at(t.sent_payload, s) + at(t.sent_overhead, s);
    const double received = at(t.received_payload, s) + at(t.received_overhead, s);
    const double messages = at(t.sent_messages, s) + at(t.received_messages, s);
    return std::max(sent, received) * link.per_byte + messages * link.per_message;
}

}  // namespace

std::vector<int> TimeModel::blocked_hosts(int sites, int sites_per_host) {
    std::vector<int> hosts(static_cast<std::size_t>(std::max(sites, 0)));
    const int per = std::max(sites_per_host, 1);
    for (int s = 0; s < sites; ++s) hosts[static_cast<std::size_t>(s)] = s / per;
    return hosts;
}

std::vector<OperatorTime> operator_times(const Plan& plan, const TimeModel& model,
                                         IaNodeId first) {
    const LocalWork local(plan, model);
    const auto sites = static_cast<std::size_t>(plan.sites());
    std::vector<LinkCost> links;
    for (std::size_t s = 0; s < sites; ++s) links.push_back(link_cost(model, s, sites));
    std::vector<OperatorTime> out;
    for (IaNodeId id = first; id < plan.size(); ++id) {
        const IaNode& n = plan.node(id);
        OperatorTime busiest;
        const bool moves = is_enforcer(n.op);
        for (std::size_t s = 0; s < sites; ++s) {
            OperatorTime here;
            here.busiest = static_cast<Site>(s);
            if (moves) {
                here.communication = communication(n.cost.transfer, links[s], s);
            } else {
                const SiteWork w = local.at_site(n, s);
                here.compute = w.compute;
                here.memory = w.memory;
            }
            if (s == 0 || here.seconds() > busiest.seconds()) busiest = here;
        }
        out.push_back(busiest);
    }
    return out;
}

double estimated_seconds(const Plan& plan, const TimeModel& model, IaNodeId first) {
    double seconds = 0;
    for (const OperatorTime& t : operator_times(plan, model, first)) seconds += t.seconds();
    return seconds;
}

}  // namespace tra::ia
