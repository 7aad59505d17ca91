#include "runtime/trace_recorder.hpp"

#include <filesystem>
#include <system_error>
#include <utility>

#include "core/error.hpp"

namespace tra::runtime {

namespace fs = std::filesystem;

TraceRecorder::TraceRecorder(const std::string& dir, int rank, std::size_t max_spans)
    : max_spans_(max_spans) {
    const TraceTimeBase time{Clock::now(), std::chrono::duration_cast<std::chrono::microseconds>(
                                               std::chrono::system_clock::now().time_since_epoch())
                                               .count()};
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir))
        throw Error("--trace " + dir + ": cannot create the folder" +
                    (ec ? " (" + ec.message() + ")" : std::string(", a file is in the way")));
    pending_.spans.reserve(kBatchSpans + 64);
    file_ = std::make_unique<TraceFile>(fs::path(dir) / ("rank-" + std::to_string(rank) + ".json"),
                                        rank, time);
}

void TraceRecorder::set_operator(std::int64_t id, const std::string& op) {
    if (!on() || kept_ >= max_spans_) return;
    pending_.ops.push_back({id, op, iteration_});
    ++operators_;
}

TraceRecorder::Span::Span(TraceRecorder* recorder, const char* phase)
    : recorder_(recorder), phase_(phase) {
    if (recorder_) start_ = Clock::now();
}

void TraceRecorder::Span::end() {
    if (!recorder_) return;
    recorder_->add(phase_, start_, Clock::now());
    recorder_ = nullptr;
}

void TraceRecorder::operator_done(Clock::time_point start) {
    if (!on()) return;
    add(nullptr, start, Clock::now());
    // Between operators, so no phase's span holds the hand-over.
    if (pending_.spans.size() >= kBatchSpans) hand_over();
}

void TraceRecorder::add(const char* phase, Clock::time_point start, Clock::time_point end) {
    if (kept_ >= max_spans_) {
        ++dropped_;
        return;
    }
    // A span before any operator (none today) is filed under a pseudo-operator.
    if (operators_ == 0) {
        pending_.ops.push_back({-1, "setup", 0});
        ++operators_;
    }
    pending_.spans.push_back({phase, operators_ - 1, start, end});
    ++kept_;
    last_end_ = end;
}

void TraceRecorder::hand_over() {
    file_->append(std::move(pending_));
    pending_ = {};
    pending_.spans.reserve(kBatchSpans + 64);
}

void TraceRecorder::write() {
    if (!on()) return;
    file_->append(std::move(pending_));
    pending_ = {};
    file_->finish(kept_ > 0 ? dropped_ : 0, max_spans_, last_end_);
    file_.reset();
}

}  // namespace tra::runtime
