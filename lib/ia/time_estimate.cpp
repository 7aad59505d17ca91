#include "ia/time_estimate.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "core/dtype.hpp"
#include "ia/fused_joins.hpp"
#include "ia/gemm_permutes.hpp"
#include "ia/loop_carry.hpp"
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

// One call of a join kernel that does flops, without its call overhead: the flops at the rate of
// its kernel class (a gemm rate by call size, or the loop rate), or -- a roofline -- reading its
// operands and writing its result where that takes longer: a skinny product (a matrix-vector
// or outer product) is bound by its bytes; the gemm rates are measured on square products.
double product_seconds(const kernels::KernelCall& kernel, const Shape (&shapes)[2], DType dtype,
                       double operand_bytes, const MachineProfile& profile) {
    const double flops = static_cast<double>(kernel.flops(shapes));
    const DtypeRates& rates = profile.rates(dtype);
    const std::optional<std::int64_t> gemms = kernel.gemm_calls(shapes);
    const double rate = gemms && *gemms > 0
                            ? rates.gemm_flops_per_second(flops / static_cast<double>(*gemms))
                            : rates.loop_flops_per_second;
    return std::max(flops / rate, operand_bytes / profile.memory_bytes_per_second);
}

// The per-site work of every kind of node but enforcers.
class LocalWork {
  public:
    LocalWork(const Plan& plan, const TimeModel& model)
        : plan_(plan),
          profile_(model.profile),
          fused_(fused_joins(plan)),
          permuted_bytes_(plan.size()) {}

    SiteWork at_site(const IaNode& n, std::size_t s) const {
        const OperatorSpec& spec = operator_spec(n.op);
        if (spec.joins) return join(n, s);
        if (spec.group_by != nullptr) return aggregate(n, s);
        if (n.op == IaOp::Map && !n.logical && n.replicated && n.inputs.size() == 1)
            // A replication map: every copy owns its tile (runtime/replication_map.hpp), so it
            // reads its input tiles and writes each copy.
            return {0, pass(at(plan_.node(n.inputs[0]).cost.resident, s) + at(n.cost.resident, s))};
        if (!n.logical || n.inputs.size() != 1) return {};
        const bool transform = std::holds_alternative<TransformOp>(*n.logical);
        if (!transform && !std::holds_alternative<TileOp>(*n.logical) &&
            !std::holds_alternative<FillOp>(*n.logical))
            return {};
        // A transform, a cut or a fill reads its input tiles and writes its output tiles.
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
            w.memory =
                pass(calls * (tile_bytes_of(plan_, n.inputs[0]) +
                              tile_bytes_of(plan_, n.inputs[1]) + tile_bytes_of(plan_, n.id)));
            return w;
        }
        const double operand_bytes = tile_bytes_of(plan_, n.inputs[0]) +
                                     tile_bytes_of(plan_, n.inputs[1]) + tile_bytes_of(plan_, n.id);
        w.compute += calls * product_seconds(op->kernel, shapes, plan_.relation(n.id).type.dtype,
                                             operand_bytes, profile_);
        if (!fused_[n.id]) w.memory = pass(at(n.cost.resident, s));  // the products written
        // TTGT: each operand or result the kernel's GEMM plan permutes is read and written once
        // more (gemm_permutes.hpp asks the kernel's own planner which). Planned once per node,
        // not per site: the shapes are the node's.
        std::optional<double>& permuted = permuted_bytes_[n.id];
        if (!permuted)
            permuted = 2.0 * static_cast<double>(gemm_permuted_elements(op->kernel, shapes)) *
                       static_cast<double>(size_of(plan_.relation(n.id).type.dtype));
        w.memory += calls * pass(*permuted);
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
    // Per join node: the bytes its TTGT permutes read and write per call, once computed.
    mutable std::vector<std::optional<double>> permuted_bytes_;
};

// How a site's traffic splits over the two links: the share of its peers on other hosts.
double remote_share(const TimeModel& model, std::size_t s, std::size_t sites) {
    if (sites < 2 || s >= model.host_of_site.size()) return 0;
    const int host = model.host_of_site[s];
    const auto same = std::count(model.host_of_site.begin(), model.host_of_site.end(), host);
    return static_cast<double>(sites - static_cast<std::size_t>(same)) /
           static_cast<double>(sites - 1);
}

double sent_bytes(const Transfer& t, std::size_t s) {
    return at(t.sent_payload, s) + at(t.sent_overhead, s);
}

double received_bytes(const Transfer& t, std::size_t s) {
    return at(t.received_payload, s) + at(t.received_overhead, s);
}

// The communication of one exchange: every site's own time, and every host's network link,
// which the sites on that host share (a host sends and receives at the across-host bandwidth,
// whatever the number of its ranks that talk across at once).
class Exchange {
  public:
    Exchange(const TimeModel& model, std::size_t sites)
        : near_(model.profile.same_host), far_(model.profile.across_hosts_or_default()) {
        for (std::size_t s = 0; s < sites; ++s) share_.push_back(remote_share(model, s, sites));
        hosts_ = model.host_of_site;
    }

    double site(const Transfer& t, std::size_t s) const {
        const double r = share_[s];
        const double per_byte = (1 - r) / near_.bytes_per_second + r / far_.bytes_per_second;
        const double per_message = (1 - r) * near_.latency_seconds + r * far_.latency_seconds;
        const double messages = at(t.sent_messages, s) + at(t.received_messages, s);
        return std::max(sent_bytes(t, s), received_bytes(t, s)) * per_byte + messages * per_message;
    }

    // An exchange's seconds and the site that takes longest (the first of equals): no site
    // finishes before its host's shared network link has carried the exchange. Operators and
    // the loop's carry are timed by this one function.
    std::pair<std::size_t, double> slowest(const Transfer& t) const {
        std::size_t slowest_site = 0;
        double most = 0;
        for (std::size_t s = 0; s < share_.size(); ++s)
            if (const double here = site(t, s); s == 0 || here > most) {
                slowest_site = s;
                most = here;
            }
        return {slowest_site, std::max(most, busiest_link(t))};
    }

    // The busiest host's link: its sites' traffic to other hosts, each direction apart.
    double busiest_link(const Transfer& t) const {
        if (hosts_.empty()) return 0;
        const int count = *std::max_element(hosts_.begin(), hosts_.end()) + 1;
        std::vector<double> out(static_cast<std::size_t>(count), 0.0), in = out;
        for (std::size_t s = 0; s < share_.size() && s < hosts_.size(); ++s) {
            const auto h = static_cast<std::size_t>(hosts_[s]);
            out[h] += share_[s] * sent_bytes(t, s);
            in[h] += share_[s] * received_bytes(t, s);
        }
        double most = 0;
        for (std::size_t h = 0; h < out.size(); ++h) most = std::max({most, out[h], in[h]});
        return most / far_.bytes_per_second;
    }

  private:
    LinkRates near_, far_;
    std::vector<double> share_;
    std::vector<int> hosts_;
};

}  // namespace

std::vector<int> TimeModel::blocked_hosts(int sites, int sites_per_host) {
    std::vector<int> hosts(static_cast<std::size_t>(std::max(sites, 0)));
    const int per = std::max(sites_per_host, 1);
    for (int s = 0; s < sites; ++s) hosts[static_cast<std::size_t>(s)] = s / per;
    return hosts;
}

std::vector<OperatorTime> operator_times(const Plan& plan, const TimeModel& model, IaNodeId first) {
    const LocalWork local(plan, model);
    const auto sites = static_cast<std::size_t>(plan.sites());
    const Exchange exchange(model, sites);
    std::vector<OperatorTime> out;
    for (IaNodeId id = first; id < plan.size(); ++id) {
        const IaNode& n = plan.node(id);
        OperatorTime busiest;
        if (is_enforcer(n.op)) {
            const auto [site, seconds] = exchange.slowest(n.cost.transfer);
            busiest.busiest = static_cast<Site>(site);
            busiest.communication = seconds;
            out.push_back(busiest);
            continue;
        }
        for (std::size_t s = 0; s < sites; ++s) {
            OperatorTime here;
            here.busiest = static_cast<Site>(s);
            const SiteWork w = local.at_site(n, s);
            here.compute = w.compute;
            here.memory = w.memory;
            if (s == 0 || here.seconds() > busiest.seconds()) busiest = here;
        }
        out.push_back(busiest);
    }
    return out;
}

std::vector<double> carry_seconds(const Plan& plan, const TimeModel& model) {
    const auto sites = static_cast<std::size_t>(plan.sites());
    const Exchange exchange(model, sites);
    std::vector<double> out;
    for (const CarryMove& m : carry_moves(plan)) out.push_back(exchange.slowest(m.transfer).second);
    return out;
}

double compute_lower_bound(const Program& program, const TimeModel& model, int sites) {
    double total = 0;
    for (const Node& n : program.nodes) {
        const auto* op = std::get_if<JoinOp>(&n.op);
        if (!op || !n.needed) continue;
        const Shape shapes[] = {program.node(n.inputs[0]).type.bound,
                                program.node(n.inputs[1]).type.bound};
        const double calls = static_cast<double>(n.tuples());
        double per_call = model.profile.kernel_call_seconds;
        if (op->kernel.flops(shapes) > 0) {
            const auto bytes = [&](const Node& r) {
                return static_cast<double>(r.type.bound.product()) *
                       static_cast<double>(size_of(r.type.dtype));
            };
            per_call += product_seconds(
                op->kernel, shapes, n.type.dtype,
                bytes(program.node(n.inputs[0])) + bytes(program.node(n.inputs[1])) + bytes(n),
                model.profile);
        }
        total += calls * per_call;
    }
    return total / std::max(sites, 1);
}

double estimated_seconds(const Plan& plan, const TimeModel& model, IaNodeId first) {
    double seconds = 0;
    if (first == 0)
        for (double s : carry_seconds(plan, model)) seconds += s;
    for (const OperatorTime& t : operator_times(plan, model, first)) seconds += t.seconds();
    return seconds;
}

}  // namespace tra::ia
