#include "runtime/trace_recorder.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "core/error.hpp"

namespace tra::runtime {

namespace fs = std::filesystem;

namespace {

// Op names are identifiers today; escaping keeps the file valid JSON whatever they become.
std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

// Tracks of a rank's process: the operators, then their phases (Perfetto shows them as rows).
constexpr int kOperatorTrack = 0;
constexpr int kPhaseTrack = 1;

}  // namespace

TraceRecorder::TraceRecorder(const std::string& dir, int rank, std::size_t max_spans)
    : on_(true), dir_(dir), rank_(rank), steady0_(Clock::now()), max_spans_(max_spans) {
    epoch_us0_ = std::chrono::duration_cast<std::chrono::microseconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count();
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec || !fs::is_directory(dir_))
        throw Error("--trace " + dir_ + ": cannot create the folder" +
                    (ec ? " (" + ec.message() + ")" : std::string(", a file is in the way")));
    // Room for a span per phase of a few hundred operators without growing during the run.
    events_.reserve(4096);
}

void TraceRecorder::set_operator(std::int64_t id, const std::string& op) {
    if (on_ && events_.size() < max_spans_) ops_.push_back({id, op, iteration_});
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
    if (on_) add(nullptr, start, Clock::now());
}

void TraceRecorder::add(const char* phase, Clock::time_point start, Clock::time_point end) {
    // A span before any operator (none today) is filed under a pseudo-operator.
    if (events_.size() >= max_spans_) {
        ++dropped_;
        return;
    }
    if (ops_.empty()) ops_.push_back({-1, "setup", 0});
    events_.push_back({phase, ops_.size() - 1, start, end});
}

void TraceRecorder::write() const {
    if (!on_) return;
    const auto us = [this](Clock::time_point t) {
        return epoch_us0_ +
               std::chrono::duration_cast<std::chrono::microseconds>(t - steady0_).count();
    };
    const fs::path final_path = fs::path(dir_) / ("rank-" + std::to_string(rank_) + ".json");
    const fs::path temp = fs::path(final_path.string() + ".tmp-" + std::to_string(::getpid()));
    {
        std::ofstream out(temp);
        out << "{\"traceEvents\": [\n";
        out << R"({"name": "process_name", "ph": "M", "pid": )" << rank_
            << R"(, "tid": 0, "args": {"name": "rank )" << rank_ << "\"}},\n";
        out << R"({"name": "thread_name", "ph": "M", "pid": )" << rank_
            << ", \"tid\": " << kOperatorTrack << R"(, "args": {"name": "operators"}},)"
            << "\n";
        out << R"({"name": "thread_name", "ph": "M", "pid": )" << rank_
            << ", \"tid\": " << kPhaseTrack << R"(, "args": {"name": "phases"}})";
        for (const Event& e : events_) {
            const Operator& o = ops_[e.op];
            const std::string name = "#" + std::to_string(o.id) + " " + o.op +
                                     (e.phase ? std::string(" ") + e.phase : "") +
                                     (o.iteration ? " @" + std::to_string(o.iteration) : "");
            const std::int64_t ts = us(e.start), dur = us(e.end) - ts;
            out << ",\n{\"name\": " << json_string(name) << ", \"cat\": \""
                << (e.phase ? "phase" : "operator") << "\", \"ph\": \"X\", \"ts\": " << ts
                << ", \"dur\": " << dur << ", \"pid\": " << rank_
                << ", \"tid\": " << (e.phase ? kPhaseTrack : kOperatorTrack)
                << ", \"args\": {\"id\": " << o.id << ", \"op\": " << json_string(o.op)
                << ", \"phase\": " << json_string(e.phase ? e.phase : "operator");
            if (o.iteration) out << ", \"iteration\": " << o.iteration;
            out << "}}";
        }
        if (dropped_ > 0 && !events_.empty())
            out << ",\n{\"name\": \"trace truncated: " << dropped_
                << " later spans not kept (the first " << max_spans_
                << " are)\", \"cat\": \"truncated\", \"ph\": \"i\", \"s\": \"p\", \"ts\": "
                << us(events_.back().end) << ", \"pid\": " << rank_
                << ", \"tid\": " << kOperatorTrack << ", \"args\": {\"dropped\": " << dropped_
                << "}}";
        out << "\n], \"displayTimeUnit\": \"ms\"}\n";
        out.flush();
        if (!out) {
            std::error_code ignored;
            fs::remove(temp, ignored);
            throw Error("--trace: cannot write " + temp.string(), {}, ErrorKind::Failed);
        }
    }
    std::error_code ec;
    fs::rename(temp, final_path, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(temp, ignored);
        throw Error("--trace: cannot rename " + temp.string() + " to " + final_path.string() +
                        " (" + ec.message() + ")",
                    {}, ErrorKind::Failed);
    }
}

}  // namespace tra::runtime
