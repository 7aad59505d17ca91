#include "runtime/executor.hpp"

#include <algorithm>
#include <set>
#include <utility>
#include <variant>

#include "core/error.hpp"
#include "ia/partials.hpp"
#include "runtime/exchange.hpp"
#include "runtime/local_ops.hpp"

namespace tra::runtime {

namespace {

[[noreturn]] void fail(const std::string& message) { throw Error(message, {}, ErrorKind::Failed); }

using ia::IaNode;
using ia::IaOp;
using ia::Site;

bool holds(const std::vector<Site>& sites, Site s) {
    return std::find(sites.begin(), sites.end(), s) != sites.end();
}

// What one rank holds of one node's output: plain tuples, or partials (group -> source site ->
// partial) for nodes that hold partial results.
struct Held {
    Tuples tuples;
    std::map<Key, std::map<Site, Tile>> partials;
    std::int64_t bytes = 0;

    void count() {
        bytes = 0;
        for (const auto& [k, t] : tuples) bytes += static_cast<std::int64_t>(t.bytes());
        for (const auto& [k, by] : partials)
            for (const auto& [s, t] : by) bytes += static_cast<std::int64_t>(t.bytes());
    }
    void clear() {
        Tuples().swap(tuples);
        partials.clear();
        bytes = 0;
    }
};

const Operator& logical_of(const ia::Plan& plan, const IaNode& n) {
    return n.logical ? *n.logical : plan.origin(n.id).op;
}

}  // namespace

std::vector<ia::SiteMap> trace_sites(const ia::Plan& plan) {
    const int S = plan.sites();
    std::vector<ia::SiteMap> sites(plan.size());
    for (const IaNode& n : plan.nodes()) {
        const Node& origin = plan.origin(n.id);
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
        const Operator& op = logical_of(plan, n);
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
    int me = 0, size = 0;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    if (size != plan.sites())
        fail("the plan is for " + std::to_string(plan.sites()) + " sites, the run has " +
             std::to_string(size) + " ranks");
    const int S = size;
    const std::vector<ia::SiteMap> sites = trace_sites(plan);

    // Last consumer of each output; program results live to the end.
    std::vector<std::size_t> last_use(plan.size(), 0);
    for (const IaNode& n : plan.nodes()) {
        last_use[n.id] = std::max(last_use[n.id], n.id);
        for (auto in : n.inputs) last_use[in] = std::max(last_use[in], n.id);
    }
    for (const Output& o : plan.program().outputs)
        if (auto r = plan.result(o.node)) last_use[*r] = plan.size();

    std::vector<Held> held(plan.size());
    std::int64_t resident = 0;
    std::vector<OperatorRun> runs;
    std::int64_t moved = 0;

    for (const IaNode& n : plan.nodes()) {
        const Node& origin = plan.origin(n.id);
        OperatorRun run;
        run.id = static_cast<std::int64_t>(n.id);
        run.op = n.op == IaOp::Input ? "read" : ia::op_name(n.op);
        run.predicted_payload = n.cost.transfer.payload_bytes;
        run.predicted_overhead = n.cost.transfer.overhead_bytes;
        const double t0 = MPI_Wtime();
        Held out;
        std::int64_t buffers = 0;
        const bool partial_input = !n.inputs.empty() && plan.holds_partials(n.inputs[0]);

        if (n.op == IaOp::Input) {
            const ia::SiteMap& mine = sites[n.id];
            out.tuples = input_tuples(origin, [&](const Key& k) { return holds(mine.at(k), me); });
            if (options.memory.tiles == Residence::Device)
                for (auto& [k, t] : out.tuples) t = t.to(Residence::Device);
        } else if (ia::is_enforcer(n.op)) {
            const Held& in = held.at(n.inputs[0]);
            const ia::SiteMap& from = sites.at(n.inputs[0]);
            std::vector<std::vector<OutgoingTuple>> send(static_cast<std::size_t>(S));
            std::vector<std::vector<Key>> expect(static_cast<std::size_t>(S));
            ExchangeStats stats;
            if (partial_input) {
                // A reduce: every holder but the home sends its own partial to the home.
                for (const auto& [g, by] : in.partials)
                    for (const auto& [src, t] : by) {
                        const Site home = n.placement.home(g, S);
                        if (home == me) {
                            out.partials[g].emplace(src, t);
                        } else {
                            if (src != me) fail("a partial computed elsewhere cannot be forwarded");
                            send[static_cast<std::size_t>(home)].emplace_back(&g, &t);
                        }
                    }
                for (const auto& [g, holders] : from)
                    if (n.placement.home(g, S) == me)
                        for (Site s : holders)
                            if (s != me) expect[static_cast<std::size_t>(s)].push_back(g);
                stats = exchange(comm, static_cast<int>(n.id % 32000), origin.type, send, expect,
                                 [&](int src, Key k, Tile t) {
                                     out.partials[k].emplace(src, std::move(t));
                                 },
                                 options.memory);
            } else {
                for (const auto& [k, t] : in.tuples) {
                    const std::vector<Site>& had = from.at(k);
                    for (Site r : n.placement.sites(k, S)) {
                        if (r == me) {
                            out.tuples.emplace(k, t);
                        } else if (!holds(had, r) && ia::sender_for(had, r) == me) {
                            send[static_cast<std::size_t>(r)].emplace_back(&k, &t);
                        }
                    }
                }
                for (const auto& [k, had] : from)
                    if (!holds(had, me) && holds(n.placement.sites(k, S), me))
                        expect[static_cast<std::size_t>(ia::sender_for(had, me))].push_back(k);
                stats = exchange(comm, static_cast<int>(n.id % 32000), origin.type, send, expect,
                                 [&](int, Key k, Tile t) { out.tuples.emplace(std::move(k), std::move(t)); },
                                 options.memory);
            }
            run.measured_payload = stats.payload_bytes;
            run.measured_overhead = stats.overhead_bytes;
            buffers = stats.buffer_bytes;
            const auto& tr = n.cost.transfer;
            const auto site = static_cast<std::size_t>(me);
            if (site < tr.received_payload.size() &&
                (tr.received_payload[site] != stats.payload_bytes ||
                 tr.received_overhead[site] != stats.overhead_bytes))
                run.rank_mismatches.push_back(
                    "rank " + std::to_string(me) + " received " + std::to_string(stats.payload_bytes) +
                    " + " + std::to_string(stats.overhead_bytes) + " bytes, predicted " +
                    std::to_string(tr.received_payload[site]) + " + " +
                    std::to_string(tr.received_overhead[site]));
        } else if (n.op == IaOp::LocalJoin) {
            const auto& join = std::get<JoinOp>(logical_of(plan, n));
            out.tuples = join_tuples(origin, join, held.at(n.inputs.at(0)).tuples,
                                     held.at(n.inputs.at(1)).tuples,
                                     plan.origin(n.inputs.at(1)).type.key_arity);
        } else if (n.op == IaOp::LocalAggregate && partial_input) {
            // Combine: fold each group's partials in ascending order of the site computing them.
            const auto& agg = std::get<AggregateOp>(logical_of(plan, n));
            for (const auto& [g, by] : held.at(n.inputs[0]).partials) {
                auto it = by.begin();
                Tile acc = it->second;
                for (++it; it != by.end(); ++it) {
                    const Tile* args[] = {&acc, &it->second};
                    acc = agg.kernel.apply(args, {g, origin.frontier});
                }
                out.tuples.emplace(g, std::move(acc));
            }
        } else if (n.op == IaOp::LocalAggregate || n.op == IaOp::PartialAggregate) {
            const Operator& op = logical_of(plan, n);
            const Tuples& in = held.at(n.inputs.at(0)).tuples;
            Tuples result;
            if (const auto* agg = std::get_if<AggregateOp>(&op))
                result = aggregate_tuples(origin, *agg, in);
            else if (const auto* concat = std::get_if<ConcatOp>(&op))
                result = concat_tuples(*concat, in);
            else
                fail("IA node #" + std::to_string(n.id) + " aggregates with a non-aggregate operator");
            if (n.op == IaOp::PartialAggregate) {
                for (auto& [g, t] : result) out.partials[g].emplace(me, std::move(t));
            } else {
                out.tuples = std::move(result);
            }
        } else {  // local_filter, map
            const Node& input = plan.origin(n.inputs.at(0));
            out.tuples = map_tuples(origin, logical_of(plan, n), held.at(n.inputs.at(0)).tuples,
                                    input.keys.frontier(input.type.key_arity));
        }

        // The tuples held must be exactly those the traced placement puts on this site.
        const ia::SiteMap& where = sites[n.id];
        std::size_t expected = 0;
        for (const auto& [k, s] : where)
            if (holds(s, me)) ++expected;
        const std::size_t have = plan.holds_partials(n.id) ? out.partials.size() : out.tuples.size();
        if (have != expected)
            fail("IA node #" + std::to_string(n.id) + " ('" + origin.name + "') holds " +
                 std::to_string(have) + " tuples on rank " + std::to_string(me) + ", the plan says " +
                 std::to_string(expected));

        out.count();
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

    // Gather each output relation to rank 0: every tuple once, from the lowest site holding it.
    OperatorRun write;
    write.id = static_cast<std::int64_t>(plan.size());
    write.op = "write";
    const double t0 = MPI_Wtime();
    ExecutionResult result;
    std::set<ia::IaNodeId> gathered;
    std::int64_t buffers = 0;
    for (const Output& o : plan.program().outputs) {
        const auto r = plan.result(o.node);
        if (!r) fail("the plan has no result for output " + plan.program().node(o.node).name);
        if (!gathered.insert(*r).second) continue;
        const Node& origin = plan.origin(*r);
        std::vector<std::vector<OutgoingTuple>> send(static_cast<std::size_t>(S));
        std::vector<std::vector<Key>> expect(static_cast<std::size_t>(S));
        TensorRelation relation;
        relation.type = origin.type;
        std::set<Site> senders;
        for (const auto& [k, had] : sites[*r]) {
            const Site lowest = *std::min_element(had.begin(), had.end());
            if (lowest == 0) continue;
            senders.insert(lowest);
            write.predicted_payload += static_cast<std::int64_t>(origin.type.tile_bytes());
            write.predicted_overhead += static_cast<std::int64_t>(origin.type.key_arity) * ia::kKeyValueBytes;
            if (me == 0) expect[static_cast<std::size_t>(lowest)].push_back(k);
        }
        write.predicted_overhead += static_cast<std::int64_t>(senders.size()) * ia::kCountHeaderBytes;
        for (const auto& [k, t] : held[*r].tuples) {
            const auto& had = sites[*r].at(k);
            if (*std::min_element(had.begin(), had.end()) != me) continue;
            if (me == 0)
                relation.tuples.emplace(k, t.to(Residence::Host));
            else
                send[0].emplace_back(&k, &t);
        }
        const ExchangeStats stats =
            exchange(comm, 32000 + static_cast<int>(*r % 700), origin.type, send, expect,
                     [&](int, Key k, Tile t) { relation.tuples.emplace(std::move(k), std::move(t)); },
                     ExchangeMemory{Residence::Host, options.memory.messages});
        write.measured_payload += stats.payload_bytes;
        write.measured_overhead += stats.overhead_bytes;
        buffers = std::max(buffers, stats.buffer_bytes);
        if (me == 0) {
            std::int64_t bytes = 0;
            for (const auto& [k, t] : relation.tuples) bytes += static_cast<std::int64_t>(t.bytes());
            resident += bytes;
            result.outputs.emplace(plan.node(*r).origin, std::move(relation));
        }
    }
    write.peak_bytes = resident + buffers;
    write.seconds = MPI_Wtime() - t0;
    runs.push_back(std::move(write));

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
    MPI_Reduce(seconds.data(), seconds_max.data(), static_cast<int>(k), MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(sums.data(), sums_all.data(), static_cast<int>(2 * k), MPI_INT64_T, MPI_SUM, 0, comm);
    MPI_Reduce(peaks.data(), peaks_max.data(), static_cast<int>(k), MPI_INT64_T, MPI_MAX, 0, comm);
    MPI_Reduce(mismatch.data(), mismatch_any.data(), static_cast<int>(k), MPI_INT, MPI_MAX, 0, comm);
    if (me == 0) {
        for (std::size_t i = 0; i < k; ++i) {
            runs[i].seconds = seconds_max[i];
            runs[i].measured_payload = sums_all[2 * i];
            runs[i].measured_overhead = sums_all[2 * i + 1];
            runs[i].peak_bytes = peaks_max[i];
            if (mismatch_any[i] && runs[i].rank_mismatches.empty())
                runs[i].rank_mismatches.push_back("another rank's received bytes differ from its "
                                                  "per-site prediction");
            result.peak_bytes = std::max(result.peak_bytes, runs[i].peak_bytes);
        }
    }
    result.operators = std::move(runs);
    return result;
}

}  // namespace tra::runtime
