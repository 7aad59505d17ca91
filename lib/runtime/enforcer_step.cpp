// An enforcer on one rank (Execution::run_enforcer): which tuples it sends, expects and keeps,
// agreed on before any message is posted, then the exchange and its byte check.
#include <algorithm>
#include <span>
#include <string>

#include "core/error.hpp"
#include "runtime/exchange.hpp"
#include "runtime/execution.hpp"

namespace tra::runtime {

namespace {

using ia::IaNode;
using ia::Site;

// A reduce of partials: every holder of a group's partial but the home sends its own partial to
// the home; the home keeps its own.
ExchangeLists reduce_lists(const IaNode& n, const HeldTuples& in, const ia::SiteMap& from, Site me,
                           int S) {
    ExchangeLists lists(S);
    for (const auto& [g, by] : in.partials)
        for (const auto& [src, t] : by) {
            const Site home = n.placement.home(g, S);
            if (home == me) {
                lists.keep_partials.emplace_back(&g, src);
            } else {
                if (src != me) fail("a partial computed elsewhere cannot be forwarded");
                lists.send[static_cast<std::size_t>(home)].emplace_back(&g, &t);
            }
        }
    for (const auto& [g, holders] : from)
        if (n.placement.home(g, S) == me)
            for (Site s : holders)
                if (s != me) lists.expect[static_cast<std::size_t>(s)].push_back(g);
    return lists;
}

}  // namespace

// A move (bcast, shuffle, grid): each receiver lacking a tuple gets it from sender_for.
ExchangeLists move_lists(const ia::Placement& to, const HeldTuples& in, const ia::SiteMap& from,
                         Site me, int S) {
    ExchangeLists lists(S);
    for (const auto& [k, t] : in.tuples) {
        const std::span<const Site> had = from.at(k);
        for (Site r : to.sites(k, S)) {
            if (r == me) {
                lists.keep.push_back(&k);
            } else if (!ia::holds(had, r) && ia::sender_for(had, r) == me) {
                lists.send[static_cast<std::size_t>(r)].emplace_back(&k, &t);
            }
        }
    }
    for (const auto& [k, had] : from)
        if (!ia::holds(had, me) && ia::holds(to.sites(k, S), me))
            lists.expect[static_cast<std::size_t>(ia::sender_for(had, me))].push_back(k);
    return lists;
}

// "rank R received P + O bytes, predicted P' + O'" when this rank's own bytes differ from the
// plan's per-site prediction.
void check_received_bytes(const ia::Transfer& tr, Site me, const ExchangeStats& stats,
                          OperatorRun& run) {
    const auto site = static_cast<std::size_t>(me);
    if (site < tr.received_payload.size() && (tr.received_payload[site] != stats.payload_bytes ||
                                              tr.received_overhead[site] != stats.overhead_bytes))
        run.rank_mismatches.push_back("rank " + std::to_string(me) + " received " +
                                      std::to_string(stats.payload_bytes) + " + " +
                                      std::to_string(stats.overhead_bytes) + " bytes, predicted " +
                                      std::to_string(tr.received_payload[site]) + " + " +
                                      std::to_string(tr.received_overhead[site]));
}

void Execution::run_enforcer(const IaNode& n, OperatorStep& step) {
    // Local failures are agreed on before any message is posted; a failure during the exchange
    // itself (peers wait on this rank) ends the job in the caller.
    const bool reduce = plan_.holds_partials(n.inputs.at(0));
    const HeldTuples& in = held_.at(n.inputs[0]);
    const ia::SiteMap& from = where_.at(n.inputs[0]);
    agree_.step([&] {
        step.lists = reduce ? reduce_lists(n, in, from, me_, sites_)
                            : move_lists(n.placement, in, from, me_, sites_);
    });
    faults_.reach(me_, step.run.id, step.run.op);
    HeldTuples& out = step.out;
    const ExchangeStats stats = exchange(
        comm_, static_cast<int>(n.id % 32000), plan_.relation(n.id).type, step.lists.send,
        step.lists.expect,
        [&](int src, Key k, Tile t) {
            if (reduce)
                out.partials[k].emplace(src, std::move(t));
            else
                out.tuples.emplace(std::move(k), std::move(t));
        },
        options_.memory, options_.max_message_bytes, &trace_, &watchdog_);
    step.run.measured_payload = stats.payload_bytes;
    step.run.measured_overhead = stats.overhead_bytes;
    step.buffers = stats.buffer_bytes;
    check_received_bytes(n.cost.transfer, me_, stats, step.run);
}

}  // namespace tra::runtime
