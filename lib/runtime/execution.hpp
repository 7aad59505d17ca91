#pragma once
// The state of one run of runtime::execute on one rank, and its steps in the order execute takes
// them (executor.cpp): set up (plan checked, fault hook read, sites traced), reserve the tiles
// of the peak, run each operator (an enforcer's exchange, then the local part of every
// operator, then the memory account), write the outputs, and reduce the operator reports over
// the ranks. Each step that can fail on one rank alone runs inside a RankAgreement step; the
// exchange does not (peers are waiting on this rank), as executor.hpp says.
#include <mpi.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ia/loop_carry.hpp"
#include "ia/plan.hpp"
#include "ia/transfer.hpp"
#include "runtime/executor.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/held_tuples.hpp"
#include "runtime/output_verification.hpp"
#include "runtime/rank_agreement.hpp"
#include "runtime/run_watchdog.hpp"
#include "runtime/trace_recorder.hpp"
#include "storage/collective_writer.hpp"
#include "storage/file_hold.hpp"

namespace tra::runtime {

// The messages of one enforcer on this rank: what it sends to and expects from every rank, and
// the tuples (or a group's partials by source site) it already holds and keeps. Kept tuples are
// taken over only after the exchange, since the messages may be sending them.
struct ExchangeLists {
    std::vector<std::vector<OutgoingTuple>> send;
    std::vector<std::vector<Key>> expect;
    std::vector<const Key*> keep;
    std::vector<std::pair<const Key*, ia::Site>> keep_partials;
    explicit ExchangeLists(int sites)
        : send(static_cast<std::size_t>(sites)), expect(static_cast<std::size_t>(sites)) {}
};

// What one operator produces on this rank while it runs.
// The tuples an enforcer moving `in` (held where `from` says) to `to` sends, expects and keeps
// on site `me` of `sites` (enforcer_step.cpp).
ExchangeLists move_lists(const ia::Placement& to, const HeldTuples& in, const ia::SiteMap& from,
                         ia::Site me, int sites);
// Adds "rank R received P + O bytes, predicted P' + O'" to `run` when this rank's own bytes
// differ from the transfer's per-site prediction.
void check_received_bytes(const ia::Transfer& predicted, ia::Site me, const ExchangeStats& stats,
                          OperatorRun& run);

// One relation every rank writes its tuples of (the lowest holder of each) into a dataset of a
// file rank 0 created: a program output, or a carried value of a loop's checkpoint.
struct WriteJob {
    const Node* node;     // the relation's type and keys
    std::string dataset;  // its dataset, existing and empty
    std::string path;     // the file, the same on every rank
    ia::IaNodeId held;    // the IA node whose tuples are written
    // A sparse output (Output::sparse): its chunks are those of node->keys, made at creation
    // (OutputFiles::create_datasets); no other tile may be written.
    bool sparse = false;
    Shape cropped;  // Output::shape: the dataset's extents where padding is cropped
};

struct OperatorStep {
    OperatorRun run;
    HeldTuples out;
    std::int64_t buffers = 0;  // exchange buffers held at once
    ExchangeLists lists;
    explicit OperatorStep(int sites) : lists(sites) {}
};

class Execution {
  public:
    // Checks the plan is for this many ranks, reads the fault hook and traces the sites (agreed).
    Execution(const ia::Plan& plan, MPI_Comm comm, const ExecuteOptions& options);

    // Maps the large tiles of this rank's peak before the first operator (tile_reservation.hpp).
    void reserve_tiles();
    // Loops (loop_iteration.cpp): the iterations this run takes, first to last (1 to 1 without
    // a loop); begin_iteration before an iteration's first operator; carry after an iteration
    // but the last (its observed outputs written): every carried input takes its step's value
    // (ia/loop_carry.hpp) and all else but the inputs read once is freed.
    std::int64_t first_iteration() const { return first_iteration_; }
    std::int64_t last_iteration() const { return last_iteration_; }
    void begin_iteration(std::int64_t iteration);
    void carry();
    // --checkpoint: after the carry of every K-th iteration (loop_checkpoint.cpp). Collective.
    void checkpoint(std::int64_t iteration);
    void end_iteration();
    // Runs one IA node: its exchange if it is an enforcer, then its local part, then the account.
    void run_operator(const ia::IaNode& n);
    // --verify: checks every output on every rank (agreed; does nothing without --verify); in a
    // loop after every iteration, the carried values too.
    void verify_outputs();
    // Puts the verification line and seconds into the report (after reduce_over_ranks).
    void report_verification(ExecutionResult& result) const;
    // The `write` operator: every rank writes the output tuples it is the lowest holder of, of
    // the outputs due after this iteration (Output::iteration; 0 after the last).
    void write_outputs(std::int64_t iteration);
    // The report: on rank 0 reduced over ranks, elsewhere this rank's own. Collective.
    // (operator_report_reduction.cpp)
    ExecutionResult reduce_over_ranks();
    // --trace: every rank writes its spans (trace_recorder.hpp); agreed, so a rank that cannot
    // fails the run everywhere. Does nothing when tracing is off.
    void write_trace();
    // The seconds write_trace took on the slowest rank (0 when tracing is off).
    double trace_seconds() const { return trace_seconds_; }

  private:
    // Sends and receives an enforcer's tuples; checks the bytes against the per-site prediction.
    void run_enforcer(const ia::IaNode& n, OperatorStep& step);
    // Reads, keeps or computes the node's tuples on this rank; checks holdings and the budget.
    void run_local(const ia::IaNode& n, OperatorStep& step);
    // Counts the new output resident, frees inputs at their last use, reports progress.
    void account_memory(const ia::IaNode& n, OperatorStep& step, double started);
    // Adds an operator's run to its slot (the same slot in every iteration) and to the
    // iteration's figures.
    void record(std::vector<OperatorRun>& slots, std::size_t slot, OperatorRun run);
    // Moves carry `j` (ia/loop_carry.hpp) into `next`, with `held_before` bytes resident.
    void carry_one(std::size_t j, HeldTuples& next, std::int64_t held_before);
    // Writes the jobs' tuples in turns or together (output_writing.cpp); `op` names the operator
    // for the fault hook. The files stay open for the next call where `keep_open` (written
    // together, or by a rank alone), else every open file is closed. Collective.
    void write_relations(const std::vector<WriteJob>& jobs, const OperatorRun& op,
                         bool keep_open = false);
    // Closes the files write_relations kept open. Collective.
    void close_open_files();
    // The iterations' figures reduced onto rank 0 (seconds by max, bytes by sum). Collective.
    std::vector<IterationRun> reduce_iterations();

    const ia::Plan& plan_;
    MPI_Comm comm_;
    const ExecuteOptions& options_;
    ia::Site me_ = 0;
    int sites_ = 0;
    RankAgreement agree_;
    RunWatchdog watchdog_;  // off without --timeout and per-operator limits
    FaultInjection faults_;
    TraceRecorder trace_;             // off unless options_.trace_dir is set
    std::vector<ia::SiteMap> where_;  // trace_sites: where every node's tuples are
    std::vector<ia::IaNodeId> last_use_;
    std::vector<std::optional<ia::IaNodeId>> fused_;

    OutputVerification verification_;  // --verify only
    std::uint64_t verify_seed_ = 0;    // rank 0's, broadcast: every rank draws the same vectors
    double verify_seconds_ = 0;
    double trace_seconds_ = 0;  // write_trace's, the slowest rank's

    std::vector<HeldTuples> held_;             // by IA node
    std::int64_t resident_ = 0;                // bytes of the tuples held now
    std::vector<OperatorRun> runs_;            // by IA node
    std::vector<OperatorRun> carry_runs_;      // by carry move
    std::vector<OperatorRun> checkpoint_run_;  // one slot, once a checkpoint was written
    std::vector<OperatorRun> write_run_;       // one slot, `write`, once anything was written
    std::size_t operators_done_ = 0;           // progress, over every iteration

    std::vector<ia::CarryMove> moves_;  // loops: the carry between two iterations
    std::int64_t first_iteration_ = 1, last_iteration_ = 1, iteration_ = 1;
    std::vector<IterationRun> iterations_;  // this rank's, up to kMaxIterationRecords
    // Files a rank writing alone holds open between a loop's observations, by path.
    std::map<std::string, std::unique_ptr<storage::FileHold>> held_files_;
#if TRA_PARALLEL_HDF5
    // Output files open for writing together, by path: kept open between a loop's observations.
    std::map<std::string, std::unique_ptr<storage::ParallelFile>> open_files_;
#endif
    double iteration_started_ = 0;
    std::int64_t moved_ = 0;  // predicted payload so far (progress)
    std::int64_t reserved_ = 0;
    double reserve_seconds_ = 0;
};

}  // namespace tra::runtime
