// The iterations of a loop on one rank (Program::repeat; docs/runtime.md, "Loops"): the plan's
// operators run once per iteration; between two iterations the carry gives every carried input
// its step's value, moved to where the input's node starts (ia/loop_carry.hpp: the exact bytes
// the plan predicts), and everything but the inputs read once is freed, so each iteration starts
// from the same holdings as the first. Each operator's figures add up over the iterations in one
// slot; each iteration's own are kept apart for the report.
#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "ia/last_uses.hpp"
#include "runtime/execution.hpp"

namespace tra::runtime {

namespace {

// Operator runs in one slot over iterations: seconds and bytes add up, the peak is the largest.
// Mismatch lines are kept for the first few iterations only, so a long loop cannot grow them.
void accumulate(OperatorRun& into, OperatorRun run) {
    into.seconds += run.seconds;
    into.measured_payload += run.measured_payload;
    into.measured_overhead += run.measured_overhead;
    into.predicted_payload += run.predicted_payload;
    into.predicted_overhead += run.predicted_overhead;
    into.peak_bytes = std::max(into.peak_bytes, run.peak_bytes);
    for (auto& line : run.rank_mismatches)
        if (into.rank_mismatches.size() < 8) into.rank_mismatches.push_back(std::move(line));
}

}  // namespace

void Execution::record(std::vector<OperatorRun>& slots, std::size_t slot, OperatorRun run) {
    if (!iterations_.empty()) {
        IterationRun& it = iterations_.back();
        it.measured_payload += run.measured_payload;
        it.measured_overhead += run.measured_overhead;
        it.predicted_payload += run.predicted_payload;
        it.predicted_overhead += run.predicted_overhead;
    }
    if (slot < slots.size())
        accumulate(slots[slot], std::move(run));
    else if (slot == slots.size())
        slots.push_back(std::move(run));
    else
        fail("internal: operator slot " + std::to_string(slot) + " recorded out of order");
}

void Execution::begin_iteration(std::int64_t iteration) {
    iteration_ = iteration;
    faults_.set_iteration(iteration);
    if (!plan_.program().repeat) return;
    trace_.set_iteration(iteration);
    iteration_started_ = MPI_Wtime();
    if (iteration - first_iteration_ < kMaxIterationRecords)
        iterations_.push_back(IterationRun{iteration, 0, 0, 0, 0, 0});
}

void Execution::end_iteration() {
    if (!plan_.program().repeat || iterations_.empty()) return;
    if (iterations_.back().iteration == iteration_)
        iterations_.back().seconds = MPI_Wtime() - iteration_started_;
}

void Execution::carry_one(std::size_t j, HeldTuples& next, std::int64_t held_before) {
    const ia::CarryMove& m = moves_[j];
    const double started = MPI_Wtime();
    OperatorStep step(sites_);
    step.run.id = static_cast<std::int64_t>(plan_.size() + 1 + j);
    step.run.op = "carry";
    step.run.predicted_payload = m.transfer.payload_bytes;
    step.run.predicted_overhead = m.transfer.overhead_bytes;
    trace_.set_operator(step.run.id, step.run.op);  // trace
    const auto traced = TraceRecorder::now();       // trace
    const std::string input = plan_.relation(m.input).name;
    if (watchdog_.on())
        watchdog_.set_place(
            "the carry of " + input + " after iteration " + std::to_string(iteration_),
            operator_limit(options_.operator_timeout_factor, options_.operator_timeout_floor, 0.0));
    HeldTuples& from = held_.at(m.step);
    agree_.step([&] {
        step.lists =
            move_lists(plan_.node(m.input).placement, from, where_.at(m.step), me_, sites_);
    });
    faults_.reach(me_, step.run.id, step.run.op);
    const ExchangeStats stats = exchange(
        comm_, static_cast<int>((plan_.size() + 1 + j) % 32000), plan_.relation(m.input).type,
        step.lists.send, step.lists.expect,
        [&](int, Key k, Tile t) { next.tuples.emplace(std::move(k), std::move(t)); },
        options_.memory, options_.max_message_bytes, &trace_, &watchdog_);
    // What this site already holds stays here: moved, since carry() frees the step's result
    // next; copied where that result is another carry's value too, or stays for the next
    // iteration (an input read once).
    const bool copy = ia::copies_kept_tuples(plan_, moves_, j);
    for (const Key* k : step.lists.keep) {
        Tile& kept = from.tuples.at(*k);
        next.tuples.emplace(*k, copy ? Tile(kept) : std::move(kept));
    }
    // Agreed on at the next step, as an enforcer's local part (Execution::run_local).
    agree_.defer([&] {
        next.count();
        const std::int64_t needs = held_before + next.bytes + stats.buffer_bytes;
        step.run.peak_bytes = needs;
        if (options_.memory_budget > 0 && needs > options_.memory_budget)
            fail("the carry of " + input + " needs " + std::to_string(needs) +
                 " bytes resident, over the memory budget of " +
                 std::to_string(options_.memory_budget) + " bytes per site");
    });
    step.run.measured_payload = stats.payload_bytes;
    step.run.measured_overhead = stats.overhead_bytes;
    check_received_bytes(m.transfer, me_, stats, step.run);
    step.run.seconds = MPI_Wtime() - started;
    trace_.operator_done(traced);  // trace
    record(carry_runs_, j, std::move(step.run));
}

void Execution::carry() {
    // Every move reads the values of this iteration: the new ones are installed together.
    std::vector<HeldTuples> next(moves_.size());
    std::int64_t held = resident_;
    for (std::size_t j = 0; j < moves_.size(); ++j) {
        carry_one(j, next[j], held);
        held += next[j].bytes;
    }
    resident_ = 0;
    for (const ia::IaNode& n : plan_.nodes()) {
        if (ia::read_once(plan_, n))
            resident_ += held_[n.id].bytes;
        else
            held_[n.id].clear();
    }
    for (std::size_t j = 0; j < moves_.size(); ++j) {
        resident_ += next[j].bytes;
        held_[moves_[j].input] = std::move(next[j]);
    }
}

}  // namespace tra::runtime
