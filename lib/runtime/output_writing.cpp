// The `write` operator (Execution::write_outputs): each output tuple once, by the lowest site
// holding it, into the output's temporary file: every rank at once through parallel HDF5
// (storage/collective_writer.hpp), or one rank at a time (output_files.hpp, write_in_turns).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/host_mappings.hpp"
#include "runtime/execution.hpp"
#include "runtime/output_files.hpp"
#include "storage/collective_writer.hpp"
#include "storage/file_hold.hpp"
#include "storage/tensor_file.hpp"

namespace tra::runtime {

namespace {

// The tuples of `held` that this rank is the lowest holder of (by `where`), in key order.
std::vector<const Tuples::value_type*> lowest_held(const HeldTuples& held, const ia::SiteMap& where,
                                                   ia::Site me) {
    std::vector<const Tuples::value_type*> mine;
    for (const auto& kt : held.tuples) {
        const auto& had = where.at(kt.first);
        if (*std::min_element(had.begin(), had.end()) == me) mine.push_back(&kt);
    }
    return mine;
}

// A sparse output's dataset has the chunks of its node's keys only (create_relation_dataset);
// a tile of another key would get a chunk of its own, placed where the writing rank's turn
// puts it, so it is refused in every writer.
void check_sparse_key(const WriteJob& job, const Key& k) {
    if (job.sparse && !job.node->keys.contains(k))
        fail("tile " + k.str() + " of sparse output " + job.node->name +
             " is not among the keys its dataset was made for");
}

// Writes this rank's tuples of `held` into the dataset of `job` in its turn: opens the file
// only when there is one.
void write_in_my_turn(const WriteJob& job, const HeldTuples& held, const ia::SiteMap& where,
                      ia::Site me) {
    const Node& node = *job.node;
    const auto layout = output_layout(node, job.cropped);
    std::optional<storage::DatasetWriter> writer;
    Tile scratch;
    for (const auto* kt : lowest_held(held, where, me)) {
        const auto& [k, t] = *kt;
        check_sparse_key(job, k);
        if (!writer)
            writer.emplace(storage::DatasetWriter::reopen(job.path, job.dataset, node.type.dtype,
                                                          layout.dataset_shape));
        if (t.on_device()) {
            scratch = t.to(Residence::Host);
            writer->write_block(layout.origin(k), layout.block(k, scratch, scratch));
        } else {
            writer->write_block(layout.origin(k), layout.block(k, t, scratch));
        }
    }
    if (writer) writer->close();
}

#if TRA_PARALLEL_HDF5
// Writes this rank's tuples of `held` into `file` with every other rank at once; every rank calls
// it, also one without tuples (the dataset's opening, writes and closing are collective).
//
// Parallel HDF5 1.10 cannot give a chunk its place while ranks write (a write into an
// unallocated chunk is lost or fails), and opening a dataset with no chunk at all through
// MPI-IO allocates every chunk. So a sparse output is written into the chunks that
// create_datasets made, those of its node's keys: one without keys is not opened.
void write_together(storage::ParallelFile& file, storage::Transfer transfer, const WriteJob& job,
                    const HeldTuples& held, const ia::SiteMap& where, ia::Site me) {
    const Node& node = *job.node;
    if (job.sparse && node.keys.empty()) return;  // the same on every rank
    const auto layout = output_layout(node, job.cropped);
    const auto mine = lowest_held(held, where, me);
    storage::CollectiveWriter writer(file, job.dataset, node.type.dtype, layout.dataset_shape,
                                     transfer);
    writer.write(mine.size(), [&](std::size_t i, Shape& origin, Tile& host) -> const Tile& {
        const auto& [k, t] = *mine[i];
        check_sparse_key(job, k);
        origin = layout.origin(k);
        if (!t.on_device()) return layout.block(k, t, host);
        host = t.to(Residence::Host);
        return layout.block(k, host, host);
    });
    writer.close();
}
#endif

}  // namespace

void Execution::write_outputs(std::int64_t iteration) {
    // The outputs due now: observations of this iteration, and after the last the others.
    const auto& outputs = plan_.program().outputs;
    if (options_.output_paths.size() != outputs.size())
        fail("the run has " + std::to_string(options_.output_paths.size()) + " output files for " +
             std::to_string(outputs.size()) + " outputs");
    std::vector<WriteJob> due;
    agree_.step([&] {
        for (std::size_t i = 0; i < outputs.size(); ++i)
            if (outputs[i].iteration == iteration ||
                (outputs[i].iteration == 0 && iteration == last_iteration_)) {
                const Output& o = outputs[i];
                const auto r = plan_.result(o.node);
                if (!r)
                    fail("the plan has no result for output " + plan_.program().node(o.node).name);
                due.push_back({&plan_.program().node(o.node), o.dataset, options_.output_paths[i],
                               *r, o.sparse, o.shape});
            }
    });
    const bool last = iteration == last_iteration_;
    if (due.empty() && !last) return;

    // Nothing but the outputs' tiles is allocated from here on: the cached mappings go back to
    // the system, where the output files' page cache takes them up.
    if (last) host_mappings::trim();

    OperatorRun write;
    write.id = static_cast<std::int64_t>(plan_.size());
    write.op = "write";
    const double started = MPI_Wtime();
    // `write` has no prediction, so no operator limit: the last operator's must not carry over.
    if (watchdog_.on()) watchdog_.set_place("operator #" + std::to_string(write.id) + " write");
    trace_.set_operator(write.id, write.op);   // trace
    const auto traced = TraceRecorder::now();  // trace
    // A loop's observations keep their files open until the last write (or a checkpoint).
    write_relations(due, write, !last);
    write.peak_bytes = resident_;
    write.seconds = MPI_Wtime() - started;
    trace_.operator_done(traced);  // trace
    record(write_run_, 0, std::move(write));
}

void Execution::write_relations(const std::vector<WriteJob>& jobs, const OperatorRun& op,
                                bool keep_open) {
    OutputWriter how = OutputWriter::Turns;
    agree_.step([&] { how = output_writer(comm_); });
    if (how == OutputWriter::Turns) {
        write_in_turns(comm_, [&] {
            faults_.reach(me_, op.id, op.op);
            auto span = trace_.span("write");  // trace: this rank's turn, not the wait for it
            // A rank that writes alone holds its files open across a loop's observations.
            if (sites_ == 1)
                for (const WriteJob& j : jobs)
                    if (!held_files_.count(j.path))
                        held_files_.emplace(j.path, std::make_unique<storage::FileHold>(j.path));
            for (const WriteJob& j : jobs) write_in_my_turn(j, held_[j.held], where_[j.held], me_);
        });
        if (!keep_open) agree_.step([&] { close_open_files(); });
    } else {
#if TRA_PARALLEL_HDF5
        // The injected fault is agreed on before the collective writes begin, so no rank is left
        // in one of them; a failure inside one reaches every rank (CollectiveWriter) and is agreed.
        agree_.step([&] { faults_.reach(me_, op.id, op.op); });
        const auto transfer = how == OutputWriter::Collective ? storage::Transfer::Collective
                                                              : storage::Transfer::Independent;
        agree_.step([&] {
            auto span = trace_.span("write");  // trace
            for (const WriteJob& j : jobs) {
                auto& file = open_files_[j.path];
                if (!file) file = std::make_unique<storage::ParallelFile>(comm_, j.path);
                write_together(*file, transfer, j, held_[j.held], where_[j.held], me_);
            }
            if (!keep_open) close_open_files();
        });
#endif
    }
}

void Execution::close_open_files() {
    for (auto& [path, file] : held_files_) file->close();
    held_files_.clear();
#if TRA_PARALLEL_HDF5
    // In path order, the same on every rank (closing is collective).
    for (auto& [path, file] : open_files_) file->close();
    open_files_.clear();
#endif
}

}  // namespace tra::runtime
