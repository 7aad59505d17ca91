#include "runtime/executor.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <variant>

#include "core/error.hpp"
#include "core/host_mappings.hpp"
#include "ia/fused_joins.hpp"
#include "ia/last_uses.hpp"
#include "ia/partials.hpp"
#include "ia/site_tracing.hpp"
#include "runtime/exchange.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/held_tuples.hpp"
#include "runtime/local_step.hpp"
#include "runtime/output_files.hpp"
#include "runtime/rank_agreement.hpp"
#include "runtime/tile_reservation.hpp"
#include "storage/tensor_file.hpp"

namespace tra::runtime {

namespace {

[[noreturn]] void fail(const std::string& message) {
    throw Error(message, {}, ErrorKind::Failed);
}

using ia::IaNode;
using ia::IaOp;
using ia::Site;

bool holds(const std::vector<Site>& sites, Site s) {
    return std::find(sites.begin(), sites.end(), s) != sites.end();
}

}  // namespace

std::vector<ia::SiteMap> trace_sites(const ia::Plan& plan) {
    ia::TracedPlanSites traced = ia::trace_plan_sites(plan);
    if (!traced.sites) fail(traced.problem);
    return std::move(*traced.sites);
}

namespace {

// The messages of one enforcer on this rank: what it sends to and expects from every rank, and
// the tuples (or a group's partials by source site) it already holds and keeps. Kept tuples are
// taken over only after the exchange, since the messages may be sending them.
struct ExchangeLists {
    std::vector<std::vector<OutgoingTuple>> send;
    std::vector<std::vector<Key>> expect;
    std::vector<const Key*> keep;
    std::vector<std::pair<const Key*, Site>> keep_partials;
    explicit ExchangeLists(int sites)
        : send(static_cast<std::size_t>(sites)), expect(static_cast<std::size_t>(sites)) {}
};

// Puts the kept tuples into the enforcer's output: moved when the input has no later consumer
// (no copy of a tuple the site already holds), copied otherwise.
void keep_local(const ExchangeLists& lists, HeldTuples& in, bool last_use, HeldTuples& out) {
    auto take = [last_use](Tile& t) { return last_use ? std::move(t) : Tile(t); };
    for (const Key* k : lists.keep) out.tuples.emplace(*k, take(in.tuples.at(*k)));
    for (const auto& [g, src] : lists.keep_partials)
        out.partials[*g].emplace(src, take(in.partials.at(*g).at(src)));
}

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

// A move (bcast, shuffle, grid): each receiver lacking a tuple gets it from sender_for.
ExchangeLists move_lists(const IaNode& n, const HeldTuples& in, const ia::SiteMap& from, Site me,
                         int S) {
    ExchangeLists lists(S);
    for (const auto& [k, t] : in.tuples) {
        const std::vector<Site>& had = from.at(k);
        for (Site r : n.placement.sites(k, S)) {
            if (r == me) {
                lists.keep.push_back(&k);
            } else if (!holds(had, r) && ia::sender_for(had, r) == me) {
                lists.send[static_cast<std::size_t>(r)].emplace_back(&k, &t);
            }
        }
    }
    for (const auto& [k, had] : from)
        if (!holds(had, me) && holds(n.placement.sites(k, S), me))
            lists.expect[static_cast<std::size_t>(ia::sender_for(had, me))].push_back(k);
    return lists;
}

// The tuples held must be exactly those the traced placement puts on this site.
void check_holdings(const ia::Plan& plan, const IaNode& n, const ia::SiteMap& where, Site me,
                    const HeldTuples& out) {
    std::size_t expected = 0;
    for (const auto& [k, s] : where)
        if (holds(s, me)) ++expected;
    const std::size_t have = plan.holds_partials(n.id) ? out.partials.size() : out.tuples.size();
    if (have != expected)
        fail("IA node #" + std::to_string(n.id) + " ('" + plan.origin(n.id).name + "') holds " +
             std::to_string(have) + " tuples on rank " + std::to_string(me) + ", the plan says " +
             std::to_string(expected));
}

}  // namespace

ExecutionResult execute(const ia::Plan& plan, MPI_Comm comm, const ExecuteOptions& options) {
    int me = 0, size = 0;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    if (size != plan.sites())
        fail("the plan is for " + std::to_string(plan.sites()) + " sites, the run has " +
             std::to_string(size) + " ranks");
    const int S = size;
    const RankAgreement agree(comm);
    FaultInjection faults;
    std::vector<ia::SiteMap> sites;
    agree.step([&] {
        faults = FaultInjection::from_environment();
        sites = trace_sites(plan);
    });

    const std::vector<ia::IaNodeId> last_use = ia::last_uses(plan);
    const std::vector<std::optional<ia::IaNodeId>> fused = ia::fused_joins(plan);

    // The memory of the tiles held at the peak, before the first operator (tile_reservation.hpp).
    const double reserve_start = MPI_Wtime();
    std::int64_t reserved = 0;
    if (options.memory.tiles == Residence::Host)
        agree.step([&] {
            reserved =
                static_cast<std::int64_t>(host_mappings::reserve(tile_mappings_at_peak(plan, me)));
        });
    const double reserve_seconds = MPI_Wtime() - reserve_start;

    std::vector<HeldTuples> held(plan.size());
    std::int64_t resident = 0;
    std::vector<OperatorRun> runs;
    std::int64_t moved = 0;

    for (const IaNode& n : plan.nodes()) {
        const Node& origin = plan.relation(n.id);
        OperatorRun run;
        run.id = static_cast<std::int64_t>(n.id);
        run.op = n.op == IaOp::Input ? "read" : ia::op_name(n.op);
        run.predicted_payload = n.cost.transfer.payload_bytes;
        run.predicted_overhead = n.cost.transfer.overhead_bytes;
        const double t0 = MPI_Wtime();
        HeldTuples out;
        std::int64_t buffers = 0;
        ExchangeLists lists(S);

        if (ia::is_enforcer(n.op)) {
            // Local failures are agreed on before any message is posted; a failure during the
            // exchange itself (peers wait on this rank) ends the job in the caller.
            const bool reduce = plan.holds_partials(n.inputs.at(0));
            const HeldTuples& in = held.at(n.inputs[0]);
            const ia::SiteMap& from = sites.at(n.inputs[0]);
            agree.step([&] {
                lists = reduce ? reduce_lists(n, in, from, me, S) : move_lists(n, in, from, me, S);
            });
            faults.reach(me, run.id, run.op);
            const ExchangeStats stats = exchange(
                comm, static_cast<int>(n.id % 32000), origin.type, lists.send, lists.expect,
                [&](int src, Key k, Tile t) {
                    if (reduce)
                        out.partials[k].emplace(src, std::move(t));
                    else
                        out.tuples.emplace(std::move(k), std::move(t));
                },
                options.memory, options.max_message_bytes);
            run.measured_payload = stats.payload_bytes;
            run.measured_overhead = stats.overhead_bytes;
            buffers = stats.buffer_bytes;
            const auto& tr = n.cost.transfer;
            const auto site = static_cast<std::size_t>(me);
            if (site < tr.received_payload.size() &&
                (tr.received_payload[site] != stats.payload_bytes ||
                 tr.received_overhead[site] != stats.overhead_bytes))
                run.rank_mismatches.push_back("rank " + std::to_string(me) + " received " +
                                              std::to_string(stats.payload_bytes) + " + " +
                                              std::to_string(stats.overhead_bytes) +
                                              " bytes, predicted " +
                                              std::to_string(tr.received_payload[site]) + " + " +
                                              std::to_string(tr.received_overhead[site]));
        }
        agree.step([&] {
            if (!ia::is_enforcer(n.op)) faults.reach(me, run.id, run.op);
            if (n.op == IaOp::Input) {
                const ia::SiteMap& mine = sites[n.id];
                out.tuples =
                    input_tuples(origin, [&](const Key& k) { return holds(mine.at(k), me); });
                if (options.memory.tiles == Residence::Device)
                    for (auto& [k, t] : out.tuples) t = t.to(Residence::Device);
            } else if (ia::is_enforcer(n.op)) {
                keep_local(lists, held[n.inputs[0]], last_use[n.inputs[0]] == n.id, out);
            } else {
                // The consumer of a fused join takes the join's tuples over (compute_locally).
                if (fused[n.inputs.at(0)]) resident -= held[n.inputs[0]].bytes;
                compute_locally(plan, n, held, me, fused, out);
            }
            if (!fused[n.id]) check_holdings(plan, n, sites[n.id], me, out);
            out.count();
            if (options.memory_budget > 0 && resident + out.bytes + buffers > options.memory_budget)
                fail("IA node #" + std::to_string(n.id) + " ('" + origin.name + "') needs " +
                     std::to_string(resident + out.bytes + buffers) +
                     " bytes resident, over the memory budget of " +
                     std::to_string(options.memory_budget) + " bytes per site");
        });

        resident += out.bytes;
        run.peak_bytes = resident + buffers;
        held[n.id] = std::move(out);
        for (auto in : n.inputs)
            if (last_use[in] == n.id) {
                resident -= held[in].bytes;
                held[in].clear();
            }
        run.seconds = MPI_Wtime() - t0;
        runs.push_back(std::move(run));
        if (me == 0 && options.progress) {
            moved += runs.back().predicted_payload;
            options.progress(runs.size(), plan.size() + 1, moved);
        }
    }

    // Nothing but the outputs' tiles is allocated from here on: the cached mappings go back to
    // the system, where the output files' page cache takes them up.
    host_mappings::trim();

    // Write: each output tuple once, by the lowest site holding it, tile by tile into the
    // output's temporary file, one rank at a time (output_files.hpp).
    OperatorRun write;
    write.id = static_cast<std::int64_t>(plan.size());
    write.op = "write";
    const double t0 = MPI_Wtime();
    const auto& outputs = plan.program().outputs;
    if (options.output_paths.size() != outputs.size())
        fail("the run has " + std::to_string(options.output_paths.size()) + " output files for " +
             std::to_string(outputs.size()) + " outputs");
    write_in_turns(comm, [&] {
        faults.reach(me, write.id, write.op);
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            const auto r = plan.result(outputs[i].node);
            if (!r)
                fail("the plan has no result for output " +
                     plan.program().node(outputs[i].node).name);
            const Node& node = plan.program().node(outputs[i].node);
            const auto layout = output_layout(node);
            std::optional<storage::DatasetWriter> writer;
            for (const auto& [k, t] : held[*r].tuples) {
                const auto& had = sites[*r].at(k);
                if (*std::min_element(had.begin(), had.end()) != me) continue;
                if (!writer)
                    writer.emplace(
                        storage::DatasetWriter::reopen(options.output_paths[i], outputs[i].dataset,
                                                       node.type.dtype, layout.dataset_shape));
                if (t.on_device())
                    writer->write_block(layout.origin(k), t.to(Residence::Host));
                else
                    writer->write_block(layout.origin(k), t);
            }
            if (writer) writer->close();
        }
    });
    write.peak_bytes = resident;
    write.seconds = MPI_Wtime() - t0;
    runs.push_back(std::move(write));
    ExecutionResult result;

    // Reduce over ranks: seconds and peaks by max, measured bytes by sum.
    const std::size_t k = runs.size();
    std::vector<double> seconds(k), seconds_max(k);
    std::vector<std::int64_t> sums(2 * k), sums_all(2 * k), peaks(k), peaks_max(k);
    std::vector<int> mismatch(k), mismatch_any(k);
    for (std::size_t i = 0; i < k; ++i) {
        seconds[i] = runs[i].seconds;
        sums[2 * i] = runs[i].measured_payload;
        sums[2 * i + 1] = runs[i].measured_overhead;
        peaks[i] = runs[i].peak_bytes;
        mismatch[i] = runs[i].rank_mismatches.empty() ? 0 : 1;
    }
    MPI_Reduce(seconds.data(), seconds_max.data(), static_cast<int>(k), MPI_DOUBLE, MPI_MAX, 0,
               comm);
    MPI_Reduce(sums.data(), sums_all.data(), static_cast<int>(2 * k), MPI_INT64_T, MPI_SUM, 0,
               comm);
    MPI_Reduce(peaks.data(), peaks_max.data(), static_cast<int>(k), MPI_INT64_T, MPI_MAX, 0, comm);
    MPI_Reduce(mismatch.data(), mismatch_any.data(), static_cast<int>(k), MPI_INT, MPI_MAX, 0,
               comm);
    if (me == 0) {
        for (std::size_t i = 0; i < k; ++i) {
            runs[i].seconds = seconds_max[i];
            runs[i].measured_payload = sums_all[2 * i];
            runs[i].measured_overhead = sums_all[2 * i + 1];
            runs[i].peak_bytes = peaks_max[i];
            if (mismatch_any[i] && runs[i].rank_mismatches.empty())
                runs[i].rank_mismatches.push_back(
                    "another rank's received bytes differ from its "
                    "per-site prediction");
            result.peak_bytes = std::max(result.peak_bytes, runs[i].peak_bytes);
        }
    }
    const double reserve_local[2] = {reserve_seconds, static_cast<double>(reserved)};
    double reserve_max[2] = {0, 0};
    MPI_Reduce(reserve_local, reserve_max, 2, MPI_DOUBLE, MPI_MAX, 0, comm);
    result.reserve_seconds = me == 0 ? reserve_max[0] : reserve_seconds;
    result.reserved_bytes = me == 0 ? static_cast<std::int64_t>(reserve_max[1]) : reserved;
    result.operators = std::move(runs);
    return result;
}

}  // namespace tra::runtime
