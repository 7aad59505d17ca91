#pragma once
// Runs an IA plan on the ranks of an MPI communicator, one rank per site (docs/runtime.md).
// Every rank calls execute() with the same plan (same nodes, placements and costs). Each rank
// holds, per IA node output, the tuples the node's placement (lib/ia/placement.hpp, the one
// implementation the cost model uses) puts on its site; enforcers exchange tuples by the
// transfer contract (lib/ia/transfer.hpp, lib/ia/partials.hpp), local operators run the shared
// per-operator code (local_ops.hpp). At the end every rank writes the output tiles it holds.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/relation.hpp"
#include "ia/kernel_scratch.hpp"
#include "ia/plan.hpp"
#include "ia/transfer.hpp"
#include "runtime/exchange.hpp"
#include "runtime/run_backstop.hpp"

namespace tra::runtime {

struct OperatorRun {
    std::int64_t id = 0;  // the IA node id (tra explain's), or plan.size() for `write`
    std::string op;       // ia::op_name, "read" for inputs, "write" for the output gather
    double seconds = 0;   // max over ranks
    // Over ranks too (rank 0; elsewhere this rank's own): the fastest, the median (the mean of
    // the two middle ones for an even number of ranks), and the lowest rank that took `seconds`.
    double seconds_min = 0, seconds_median = 0;
    int slowest_rank = 0;
    std::int64_t measured_payload = 0, measured_overhead = 0;    // summed over ranks
    std::int64_t predicted_payload = 0, predicted_overhead = 0;  // the plan's exact prediction
    std::int64_t peak_bytes = 0;  // max over ranks of bytes resident during the operator
    // Ranks whose own received bytes differ from the per-site prediction (rank 0 only).
    std::vector<std::string> rank_mismatches;
};

// One iteration of a loop (Program::repeat): its body and the carry that ends it.
struct IterationRun {
    std::int64_t iteration = 0;  // 1-based
    double seconds = 0;          // max over ranks (rank 0; elsewhere this rank's own)
    std::int64_t measured_payload = 0, measured_overhead = 0;  // summed over ranks
    std::int64_t predicted_payload = 0, predicted_overhead = 0;
};

// At most this many iterations are reported one by one (ExecutionResult::iterations); the
// operators' figures always cover every iteration.
inline constexpr std::int64_t kMaxIterationRecords = 100000;

struct ExecutionResult {
    // On rank 0: reduced over ranks; elsewhere: local. In a loop, each operator's seconds and
    // bytes (measured and predicted) are summed over the iterations run, and the carry's moves
    // follow the plan's operators ("carry", ids from plan.size() + 1), then "checkpoint" (when
    // one was written), then `write`.
    std::vector<OperatorRun> operators;
    std::vector<IterationRun> iterations;  // loops only
    std::int64_t iterations_run = 1;       // loops: how many this run took (up to the records')
    std::int64_t peak_bytes = 0;           // max over ranks and operators
    // Memory mapped for large tiles before the first operator (tile_reservation.hpp), and the
    // time it took: max over ranks on rank 0.
    std::int64_t reserved_bytes = 0;
    double reserve_seconds = 0;
    // --verify: rank 0's one line saying how each output was checked (output_verification.hpp)
    // and the check's seconds (max over ranks); "" when the run did not verify.
    std::string verification;
    double verify_seconds = 0;
    // --trace: the seconds writing the rank-R.json files took (max over ranks); 0 without.
    double trace_seconds = 0;
};

struct ExecuteOptions {
    // Called on rank 0 after each operator: (operators done, total, payload bytes moved so far).
    std::function<void(std::size_t, std::size_t, std::int64_t)> progress;
    // Bytes one rank may hold resident (tiles and exchange buffers); 0: no limit. Exceeding it
    // fails the operator (agreed by every rank) rather than letting the kernel kill a rank.
    std::int64_t memory_budget = 0;
    // Every rank: the temporary file of each program output (in program.outputs order), whose
    // empty dataset exists (OutputFiles::create_datasets); the `write` operator fills them.
    std::vector<std::string> output_paths;
    // The largest MPI message; longer exchange messages travel in pieces (exchange.hpp).
    std::size_t max_message_bytes = kMaxMessageBytes;
    // Where tiles live between operators and where exchange messages are assembled
    // (DeviceContext on --device gpu); the outputs handed back are always in host memory.
    ExchangeMemory memory;
    // `--trace DIR`: every rank writes DIR/rank-R.json (trace_recorder.hpp); empty: no trace.
    std::string trace_dir;
    // `--timeout`: the run ends with one message naming the ranks that did not arrive when a
    // wait passes MPI_Wtime `started` + `timeout_seconds` (run_watchdog.hpp); 0: no deadline.
    double started = 0, timeout_seconds = 0;
    // --timeout where no rank waits (run_backstop.hpp): told where this rank is; may be null.
    RunBackstop* backstop = nullptr;
    // Per-operator limits (--operator-timeout-factor, --operator-timeout-floor): a wait in
    // operator N ends the run the same way once operator_limit(factor, floor,
    // predicted_seconds[N]) seconds passed since this rank began it (run_watchdog.hpp); factor
    // 0: none. predicted_seconds is by IA node id and the same on every rank (rank 0's time
    // model, broadcast); a node past its end counts as predicted 0 s (the floor alone).
    double operator_timeout_factor = 0, operator_timeout_floor = 0;
    std::vector<double> predicted_seconds;
    // `--verify`: check every output against its producing operator's inputs before writing it
    // (output_verification.hpp); a failed check fails the run (agreed, exit 1).
    bool verify = false;
    // The plan's kernel scratch on this rank's threads (ia::kernel_scratch), reserved with the
    // tiles before the first operator (tile_reservation.hpp); null: tiles alone.
    const ia::PlanScratch* kernel_scratch = nullptr;
    // Loops: the iteration to start from (`--resume`: the one after the checkpoint's), and where
    // the carried inputs are read from then instead of their workflow source (by TRA node id:
    // the checkpoint's datasets). Outputs observed before it are not written by this run.
    std::int64_t first_iteration = 1;
    std::map<NodeId, InputSource> input_sources;
    // Loops: `--checkpoint DIR --checkpoint-every K`: after every K-th iteration but the last,
    // the carried values and the outputs observed so far go to DIR/checkpoint.h5, replaced
    // atomically (loop_checkpoint.cpp; storage/checkpoint_file.hpp). Empty dir: none.
    std::string checkpoint_dir;
    std::int64_t checkpoint_every = 0;
    std::string plan_name;  // the checkpoint's stamp: a resumed run must run the same plan
};

// Where the tuples of every node's output are, key -> ascending sites: ia::trace_plan_sites, the
// tracing ia::annotate_costs uses too. Throws Error (Failed) when some node's cannot be told.
// Every rank computes the same maps, so no rank ever asks another.
std::vector<ia::SiteMap> trace_sites(const ia::Plan& plan);

// Runs `plan` (annotated with ia::annotate_costs, plan.sites() == communicator size). Collective:
// every rank must call it. A failure the ranks agreed on (rank_agreement.hpp: bad input, an
// unreadable tile, a kernel failure, the memory budget) throws AgreedFailure on every rank, its
// message printed once. Any other Error is a failure during an exchange, with peers waiting on
// this rank: the caller must end the whole job (abort_job).
ExecutionResult execute(const ia::Plan& plan, MPI_Comm comm, const ExecuteOptions& options = {});

}  // namespace tra::runtime
