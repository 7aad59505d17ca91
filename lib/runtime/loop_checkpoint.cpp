// `tra run --checkpoint DIR --checkpoint-every K` (docs/runtime.md, "Checkpoint and restart"):
// after every K-th iteration of a loop but the last, once the carry has given the carried inputs
// their next values, those values and the outputs observed so far are written to
// DIR/checkpoint.h5 (storage/checkpoint_file.hpp). Rank 0 creates the file under a temporary
// name, every rank writes the tiles it is the lowest holder of (as the `write` operator does),
// and rank 0 copies the observations, stamps the file and renames it over the previous one: a
// run killed at any moment leaves the previous checkpoint or the new one, never half of one.
#include <memory>
#include <string>

#include "runtime/broadcast_text.hpp"
#include "runtime/execution.hpp"
#include "runtime/output_files.hpp"
#include "storage/atomic_output.hpp"
#include "storage/checkpoint_file.hpp"
#include "storage/tensor_file.hpp"

namespace tra::runtime {

void Execution::checkpoint(std::int64_t iteration) {
    const std::int64_t every = options_.checkpoint_every;
    if (options_.checkpoint_dir.empty() || every <= 0 || iteration % every != 0 ||
        iteration >= last_iteration_)
        return;
    OperatorRun op;
    op.id = static_cast<std::int64_t>(plan_.size() + 1 + moves_.size());
    op.op = "checkpoint";
    const double started = MPI_Wtime();
    if (watchdog_.on())
        watchdog_.set_place(
            "the checkpoint after iteration " + std::to_string(iteration),
            operator_limit(options_.operator_timeout_factor, options_.operator_timeout_floor, 0.0));
    trace_.set_operator(op.id, op.op);         // trace
    const auto traced = TraceRecorder::now();  // trace

    const Program& program = plan_.program();
    std::unique_ptr<storage::AtomicOutput> file;  // rank 0
    std::string temp;
    agree_.step([&] {
        if (me_ != 0) return;
        file = std::make_unique<storage::AtomicOutput>(
            storage::checkpoint_path(options_.checkpoint_dir), true);
        temp = file->temp_path();
        // A sparse carried relation keeps only its tiles' chunks, as a sparse output does; the
        // resumed run reads the node's keys, which are those chunks.
        for (const ia::CarryMove& m : moves_) {
            const Node& node = plan_.relation(m.input);
            create_relation_dataset(temp, storage::carry_dataset(node.name), node, node.sparse);
        }
    });
    broadcast_text(temp, comm_);
    std::vector<WriteJob> jobs;
    for (const ia::CarryMove& m : moves_) {
        const Node& node = plan_.relation(m.input);
        jobs.push_back({&node, storage::carry_dataset(node.name), temp, m.input, false, {}});
    }
    write_relations(jobs, op);
    agree_.step([&] {
        if (me_ != 0) return;
        for (std::size_t i = 0; i < program.outputs.size(); ++i) {
            const Output& o = program.outputs[i];
            if (o.iteration > 0 && o.iteration <= iteration)
                storage::copy_dataset(options_.output_paths.at(i), o.dataset, temp,
                                      storage::observed_dataset(i));
        }
        storage::stamp_checkpoint(temp, {iteration, sites_, options_.plan_name});
        file->commit();
    });
    op.peak_bytes = resident_;
    op.seconds = MPI_Wtime() - started;
    trace_.operator_done(traced);  // trace
    record(checkpoint_run_, 0, std::move(op));
}

}  // namespace tra::runtime
