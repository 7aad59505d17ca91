#include "runtime/executor.hpp"

#include <algorithm>
#include <variant>

#include "core/error.hpp"
#include "ia/partials.hpp"
#include "runtime/execution.hpp"

namespace tra::runtime {

namespace {

[[noreturn]] void fail(const std::string& message) {
    throw Error(message, {}, ErrorKind::Failed);
}

using ia::IaNode;
using ia::IaOp;

}  // namespace

std::vector<ia::SiteMap> trace_sites(const ia::Plan& plan) {
    const int S = plan.sites();
    std::vector<ia::SiteMap> sites(plan.size());
    for (const IaNode& n : plan.nodes()) {
        const Node& origin = plan.relation(n.id);
        if (n.placement.kind() != ia::Placement::Kind::Unknown) {
            sites[n.id] = ia::holders(origin.keys, n.placement, S);
            continue;
        }
        if (n.op == IaOp::PartialAggregate) {
            sites[n.id] = ia::partial_holders(sites.at(n.inputs.at(0)), plan.aggregate_by(n));
            continue;
        }
        if ((n.op != IaOp::Map && n.op != IaOp::LocalFilter) || n.inputs.size() != 1)
            fail("cannot tell where the tuples of IA node #" + std::to_string(n.id) + " ('" +
                 origin.name + "') are: its placement is Unknown");
        const ia::SiteMap& in = sites.at(n.inputs[0]);
        ia::SiteMap& out = sites[n.id];
        if (n.replicated) {
            out = ia::replicated_sites(in, origin.keys, n.replicated->spec);
            continue;
        }
        const Operator& op = plan.logical(n.id);
        if (const auto* rekey = std::get_if<RekeyOp>(&op)) {
            for (const auto& [k, s] : in) {
                auto& dst = out[rekey->key.apply(k)];
                dst.insert(dst.end(), s.begin(), s.end());
            }
            for (auto& [k, s] : out) {
                std::sort(s.begin(), s.end());
                s.erase(std::unique(s.begin(), s.end()), s.end());
            }
        } else if (std::holds_alternative<TileOp>(op)) {
            for (const Key& k : origin.keys)
                out[k] = in.at(Key(std::vector<std::int64_t>(k.begin(), k.end() - 1)));
        } else {
            for (const Key& k : origin.keys) out[k] = in.at(k);
        }
    }
    return sites;
}

ExecutionResult execute(const ia::Plan& plan, MPI_Comm comm, const ExecuteOptions& options) {
    Execution run(plan, comm, options);
    run.reserve_tiles();
    for (const IaNode& n : plan.nodes()) run.run_operator(n);
    run.write_outputs();
    return run.reduce_over_ranks();
}

}  // namespace tra::runtime
