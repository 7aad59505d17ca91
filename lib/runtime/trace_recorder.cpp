#include "runtime/trace_recorder.hpp"

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
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

// The file is written in pieces of about this size: a buffer below malloc's mmap threshold,
// reused, whose pages fault in once (a 1 MiB one was mapped afresh, page by page, per write).
constexpr std::size_t kFlushBytes = std::size_t{64} << 10;

void append_integer(std::string& out, std::int64_t v) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
    out.append(digits, end);
}

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
        std::ofstream out(temp, std::ios::binary);
        // The events are formatted into a buffer written 64 KiB at a time: a loop's trace
        // has thousands of spans, and a stream insertion per field took a microsecond per span.
        std::string buf;
        buf.reserve(kFlushBytes + 4096);
        const std::string pid = std::to_string(rank_);
        buf += "{\"traceEvents\": [\n";
        buf += R"({"name": "process_name", "ph": "M", "pid": )" + pid +
               R"(, "tid": 0, "args": {"name": "rank )" + pid + "\"}},\n";
        buf += R"({"name": "thread_name", "ph": "M", "pid": )" + pid +
               ", \"tid\": " + std::to_string(kOperatorTrack) +
               R"(, "args": {"name": "operators"}},)" + "\n";
        buf += R"({"name": "thread_name", "ph": "M", "pid": )" + pid +
               ", \"tid\": " + std::to_string(kPhaseTrack) + R"(, "args": {"name": "phases"}})";
        // Per operator, once (a loop runs each one every iteration): its name's start ("#ID OP)
        // and its args' start.
        std::vector<std::string> names, args;
        std::map<std::pair<std::int64_t, std::string>, std::size_t> seen;
        std::vector<std::size_t> text_of(ops_.size());
        for (std::size_t i = 0; i < ops_.size(); ++i) {
            const Operator& o = ops_[i];
            const auto [it, fresh] = seen.try_emplace({o.id, o.op}, names.size());
            text_of[i] = it->second;
            if (!fresh) continue;
            std::string name = json_string("#" + std::to_string(o.id) + " " + o.op);
            name.pop_back();  // the phase and iteration follow
            names.push_back(std::move(name));
            args.push_back(", \"args\": {\"id\": " + std::to_string(o.id) +
                           ", \"op\": " + json_string(o.op) + ", \"phase\": ");
        }
        for (const Event& e : events_) {
            const Operator& o = ops_[e.op];
            const std::int64_t ts = us(e.start), dur = us(e.end) - ts;
            buf += ",\n{\"name\": ";
            buf += names[text_of[e.op]];
            if (e.phase) (buf += ' ') += e.phase;
            if (o.iteration) append_integer(buf += " @", o.iteration);
            buf += e.phase ? R"(", "cat": "phase", "ph": "X", "ts": )"
                           : R"(", "cat": "operator", "ph": "X", "ts": )";
            append_integer(buf, ts);
            append_integer(buf += ", \"dur\": ", dur);
            (buf += ", \"pid\": ") += pid;
            append_integer(buf += ", \"tid\": ", e.phase ? kPhaseTrack : kOperatorTrack);
            buf += args[text_of[e.op]];
            ((buf += '"') += e.phase ? e.phase : "operator") += '"';
            if (o.iteration) append_integer(buf += ", \"iteration\": ", o.iteration);
            buf += "}}";
            if (buf.size() >= kFlushBytes) {
                out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
                buf.clear();
            }
        }
        if (dropped_ > 0 && !events_.empty())
            buf += ",\n{\"name\": \"trace truncated: " + std::to_string(dropped_) +
                   " later spans not kept (the first " + std::to_string(max_spans_) +
                   " are)\", \"cat\": \"truncated\", \"ph\": \"i\", \"s\": \"p\", \"ts\": " +
                   std::to_string(us(events_.back().end)) + ", \"pid\": " + pid +
                   ", \"tid\": " + std::to_string(kOperatorTrack) +
                   ", \"args\": {\"dropped\": " + std::to_string(dropped_) + "}}";
        buf += "\n], \"displayTimeUnit\": \"ms\"}\n";
        out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
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
