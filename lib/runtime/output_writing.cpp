// The `write` operator (Execution::write_outputs): each output tuple once, by the lowest site
// holding it, tile by tile into the output's temporary file, one rank at a time
// (output_files.hpp).
#include <algorithm>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "core/host_mappings.hpp"
#include "runtime/execution.hpp"
#include "runtime/output_files.hpp"
#include "storage/tensor_file.hpp"

namespace tra::runtime {

namespace {

[[noreturn]] void fail(const std::string& message) {
    throw Error(message, {}, ErrorKind::Failed);
}

// Writes the tuples of `held` that this rank is the lowest holder of (by `where`) into the
// dataset of `output` in the file at `path`; opens the file only when there is one.
void write_lowest_held(const Node& node, const Output& output, const std::string& path,
                       const HeldTuples& held, const ia::SiteMap& where, ia::Site me) {
    const auto layout = output_layout(node);
    std::optional<storage::DatasetWriter> writer;
    for (const auto& [k, t] : held.tuples) {
        const auto& had = where.at(k);
        if (*std::min_element(had.begin(), had.end()) != me) continue;
        if (!writer)
            writer.emplace(storage::DatasetWriter::reopen(path, output.dataset, node.type.dtype,
                                                          layout.dataset_shape));
        if (t.on_device())
            writer->write_block(layout.origin(k), t.to(Residence::Host));
        else
            writer->write_block(layout.origin(k), t);
    }
    if (writer) writer->close();
}

}  // namespace

void Execution::write_outputs() {
    // Nothing but the outputs' tiles is allocated from here on: the cached mappings go back to
    // the system, where the output files' page cache takes them up.
    host_mappings::trim();

    OperatorRun write;
    write.id = static_cast<std::int64_t>(plan_.size());
    write.op = "write";
    const double started = MPI_Wtime();
    // `write` has no prediction, so no operator limit: the last operator's must not carry over.
    if (watchdog_.on()) watchdog_.set_place("operator #" + std::to_string(write.id) + " write");
    trace_.set_operator(write.id, write.op);   // trace
    const auto traced = TraceRecorder::now();  // trace
    const auto& outputs = plan_.program().outputs;
    if (options_.output_paths.size() != outputs.size())
        fail("the run has " + std::to_string(options_.output_paths.size()) + " output files for " +
             std::to_string(outputs.size()) + " outputs");
    write_in_turns(comm_, [&] {
        faults_.reach(me_, write.id, write.op);
        auto span = trace_.span("write");  // trace: this rank's turn, not the wait for it
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            const auto r = plan_.result(outputs[i].node);
            if (!r)
                fail("the plan has no result for output " +
                     plan_.program().node(outputs[i].node).name);
            write_lowest_held(plan_.program().node(outputs[i].node), outputs[i],
                              options_.output_paths[i], held_[*r], where_[*r], me_);
        }
    });
    write.peak_bytes = resident_;
    write.seconds = MPI_Wtime() - started;
    trace_.operator_done(traced);  // trace
    runs_.push_back(std::move(write));
}

}  // namespace tra::runtime
