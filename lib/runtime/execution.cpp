#include "runtime/execution.hpp"

#include <algorithm>
#include <functional>
#include <random>
#include <span>
#include <string>

#include "core/device_memory.hpp"
#include "core/error.hpp"
#include "core/host_mappings.hpp"
#include "ia/fused_joins.hpp"
#include "ia/last_uses.hpp"
#include "kernels/scratch_held.hpp"
#include "runtime/local_step.hpp"
#include "runtime/tile_reservation.hpp"

namespace tra::runtime {

namespace {

// The communicator's size, checked against the plan before any rank agrees on anything.
int sites_of(const ia::Plan& plan, MPI_Comm comm) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    if (size != plan.sites())
        fail("the plan is for " + std::to_string(plan.sites()) + " sites, the run has " +
             std::to_string(size) + " ranks");
    return size;
}

// The tuples held must be exactly those the traced placement puts on this site.
void check_holdings(const ia::Plan& plan, const ia::IaNode& n, const ia::SiteMap& where,
                    ia::Site me, const HeldTuples& out) {
    std::size_t expected = 0;
    for (const auto& [k, s] : where)
        if (ia::holds(s, me)) ++expected;
    const std::size_t have = plan.holds_partials(n.id) ? out.partials.size() : out.tuples.size();
    if (have != expected)
        fail("IA node #" + std::to_string(n.id) + " ('" + plan.origin(n.id).name + "') holds " +
             std::to_string(have) + " tuples on rank " + std::to_string(me) + ", the plan says " +
             std::to_string(expected));
}

// Puts the kept tuples into the enforcer's output: moved when the input has no later consumer
// (no copy of a tuple the site already holds), copied otherwise.
void keep_local(const ExchangeLists& lists, HeldTuples& in, bool last_use, HeldTuples& out) {
    auto take = [last_use](Tile& t) { return last_use ? std::move(t) : Tile(t); };
    for (const Key* k : lists.keep) out.tuples.emplace(*k, take(in.tuples.at(*k)));
    for (const auto& [g, src] : lists.keep_partials)
        out.partials[*g].emplace(src, take(in.partials.at(*g).at(src)));
}

}  // namespace

Execution::Execution(const ia::Plan& plan, MPI_Comm comm, const ExecuteOptions& options)
    : plan_(plan),
      comm_(comm),
      options_(options),
      sites_(sites_of(plan, comm)),
      agree_(comm),
      watchdog_(comm, options.started, options.timeout_seconds, options.operator_timeout_factor > 0,
                options.backstop) {
    me_ = agree_.rank();
    agree_.watch(&watchdog_);
    agree_.step([&] {
        faults_ = FaultInjection::from_environment();
        where_ = trace_sites(plan_);
        if (!options_.trace_dir.empty()) trace_ = TraceRecorder(options_.trace_dir, me_);
    });
    last_use_ = ia::last_uses(plan_);
    fused_ = ia::fused_joins(plan_);
    held_.resize(plan_.size());
    if (const auto& repeat = plan_.program().repeat) {
        moves_ = ia::carry_moves(plan_);
        first_iteration_ = options_.first_iteration;
        last_iteration_ = repeat->times;
        if (first_iteration_ < 1 || first_iteration_ > last_iteration_)
            fail("the run starts at iteration " + std::to_string(first_iteration_) +
                 " of a loop of " + std::to_string(last_iteration_));
    }
    if (options_.verify) {
        agree_.step([&] { verification_ = OutputVerification(plan_, fused_, where_); });
        // The check reads its operands after the last operator: none is freed or moved before.
        for (auto k : verification_.kept()) last_use_[k] = plan_.size();
        if (me_ == 0) verify_seed_ = std::random_device{}();
        MPI_Bcast(&verify_seed_, 1, MPI_UINT64_T, 0, comm_);
    }
}

void Execution::verify_outputs() {
    if (!options_.verify) return;
    const double start = MPI_Wtime();
    const std::string when =
        plan_.program().repeat ? "in iteration " + std::to_string(iteration_) + ": " : "";
    verification_.run(held_, me_, verify_seed_, agree_, comm_, when);
    const double mine = MPI_Wtime() - start;
    double slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm_);
    verify_seconds_ += slowest;  // over every iteration of a loop
}

void Execution::report_verification(ExecutionResult& result) const {
    if (!options_.verify) return;
    result.verification = verification_.summary();
    result.verify_seconds = verify_seconds_;
}

void Execution::reserve_tiles() {
    const double start = MPI_Wtime();
    if (options_.memory.tiles == Residence::Host)
        agree_.step([&] {
            reserved_ = static_cast<std::int64_t>(host_mappings::reserve(tile_mappings_at_peak(
                plan_, me_, options_.verify ? &verification_.checks() : nullptr,
                options_.kernel_scratch)));
        });
    reserve_seconds_ = MPI_Wtime() - start;
}

void Execution::run_operator(const ia::IaNode& n) {
    OperatorStep step(sites_);
    step.run.id = static_cast<std::int64_t>(n.id);
    step.run.op = n.op == ia::IaOp::Input ? "read" : ia::op_name(n.op);
    step.run.predicted_payload = n.cost.transfer.payload_bytes;
    step.run.predicted_overhead = n.cost.transfer.overhead_bytes;
    const double started = MPI_Wtime();
    trace_.set_operator(step.run.id, step.run.op);  // trace
    if (watchdog_.on()) {
        const auto& predicted = options_.predicted_seconds;
        watchdog_.set_place(
            "operator #" + std::to_string(n.id) + " " + step.run.op,
            operator_limit(options_.operator_timeout_factor, options_.operator_timeout_floor,
                           n.id < predicted.size() ? predicted[n.id] : 0.0));
    }
    const auto traced = TraceRecorder::now();  // trace
    if (ia::is_enforcer(n.op)) run_enforcer(n, step);
    run_local(n, step);
    account_memory(n, step, started);
    trace_.operator_done(traced);  // trace
}

void Execution::write_trace() {
    if (!trace_.on()) return;
    const double start = MPI_Wtime();
    agree_.step([&] { trace_.write(); });
    const double mine = MPI_Wtime() - start;
    MPI_Allreduce(&mine, &trace_seconds_, 1, MPI_DOUBLE, MPI_MAX, comm_);
}

void Execution::run_local(const ia::IaNode& n, OperatorStep& step) {
    // An exchange's local part (keeping what stays, the checks) blocks no other rank: its
    // failure is agreed on at the next step, the ranks' agreement after its lists serving both.
    const auto agreed = [&](const std::function<void()>& work) {
        if (ia::is_enforcer(n.op))
            agree_.defer(work);
        else
            agree_.step(work);
    };
    agreed([&] {
        if (!ia::is_enforcer(n.op)) faults_.reach(me_, step.run.id, step.run.op);
        HeldTuples& out = step.out;
        const bool carried = n.op == ia::IaOp::Input && plan_.program().repeat &&
                             plan_.program().repeat->carried(n.origin);
        if (iteration_ > first_iteration_ && (carried || ia::read_once(plan_, n))) {
            // A loop reads its inputs once: the carried ones hold the carry's values, the others
            // their first (loop_iteration.cpp); a slice is read anew every iteration.
            out = std::move(held_[n.id]);
            resident_ -= out.bytes;
        } else if (n.op == ia::IaOp::Input) {
            auto span = trace_.span("read");  // trace
            const ia::SiteMap& mine = where_[n.id];
            auto is_mine = [&](const Key& k) { return ia::holds(mine.at(k), me_); };
            const auto resumed = options_.input_sources.find(n.origin);
            if (resumed == options_.input_sources.end()) {
                out.tuples = input_tuples(plan_.relation(n.id), is_mine, iteration_);
            } else {  // --resume: a carried input's value from the checkpoint
                Node from = plan_.relation(n.id);
                std::get<InputOp>(from.op).source = resumed->second;
                out.tuples = input_tuples(from, is_mine, iteration_);
            }
            if (options_.memory.tiles == Residence::Device)
                for (auto& [k, t] : out.tuples) t = t.to(Residence::Device);
        } else if (ia::is_enforcer(n.op)) {
            keep_local(step.lists, held_[n.inputs[0]], last_use_[n.inputs[0]] == n.id, out);
        } else {
            // The consumer of a fused join takes the join's tuples over (compute_locally).
            if (fused_[n.inputs.at(0)]) resident_ -= held_[n.inputs[0]].bytes;
            auto span = trace_.span("compute");  // trace
            compute_locally(plan_, n, held_, me_, fused_, out, last_use_[n.inputs.at(0)] == n.id);
            // A fill on a rank that held none of its input makes its tiles of zeros on the host.
            if (options_.memory.tiles == Residence::Device)
                for (auto& [k, t] : out.tuples)
                    if (!t.on_device()) t = t.to(Residence::Device);
        }
        if (!ia::is_enforcer(n.op)) faults_.corrupt(me_, step.run.id, step.run.op, out);
        // GPU kernels run asynchronously: waiting here puts a kernel's fault in the operator
        // that launched it (not in a later exchange) and its time in this operator's seconds.
        if (options_.memory.tiles == Residence::Device) device_memory().synchronize();
        if (!fused_[n.id]) check_holdings(plan_, n, where_[n.id], me_, out);
        out.count();
        const std::int64_t needs =
            resident_ + out.bytes + step.buffers + kernels::scratch_bytes_held();
        if (options_.memory_budget > 0 && needs > options_.memory_budget)
            fail("IA node #" + std::to_string(n.id) + " ('" + plan_.relation(n.id).name +
                 "') needs " + std::to_string(needs) + " bytes resident, over the memory budget " +
                 "of " + std::to_string(options_.memory_budget) + " bytes per site");
    });
}

void Execution::account_memory(const ia::IaNode& n, OperatorStep& step, double started) {
    resident_ += step.out.bytes;
    // With the kernels' scratch, which only grows while the operator runs.
    step.run.peak_bytes = resident_ + step.buffers + kernels::scratch_bytes_held();
    held_[n.id] = std::move(step.out);
    for (auto in : n.inputs)
        if (last_use_[in] == n.id) {
            resident_ -= held_[in].bytes;
            held_[in].clear();
        }
    step.run.seconds = MPI_Wtime() - started;
    ++operators_done_;
    moved_ += step.run.predicted_payload;
    record(runs_, n.id, std::move(step.run));
    if (me_ == 0 && options_.progress) {
        const auto iterations = static_cast<std::size_t>(last_iteration_ - first_iteration_ + 1);
        options_.progress(operators_done_, plan_.size() * iterations + 1, moved_);
    }
}

}  // namespace tra::runtime
