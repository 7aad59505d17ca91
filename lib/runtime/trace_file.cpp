#include "runtime/trace_file.hpp"

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <fstream>
#include <map>
#include <string_view>
#include <system_error>
#include <utility>

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

// The pieces between a span's numbers (SpanText).
constexpr std::string_view kAt = " @",
                           kDuration = ", \"dur\": ", kIteration = ", \"iteration\": ", kEnd = "}}";

void append_integer(std::string& out, std::int64_t v) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
    out.append(digits, end);
}

// The constant text of the spans of one operator in one phase (null: the operator's own span):
// a span is head [" @" iteration] middle start ", \"dur\": " duration tail
// [", \"iteration\": " iteration] "}}".
struct SpanText {
    std::string head, middle, tail;
};

// The span texts of a trace's operators, each made on first use: a span only copies its text
// around its numbers (formatting every field of every span took most of a loop's write). An
// operator run every iteration of a loop is one entry per phase, however many iterations.
class SpanTexts {
  public:
    explicit SpanTexts(std::string pid) : pid_(std::move(pid)) {}

    // The next operator (indices count from 0 in the order added).
    void add(const TraceOperator& o) {
        const auto [it, fresh] = seen_.try_emplace({o.id, o.op}, distinct_.size());
        if (fresh) distinct_.push_back({o.id, o.op, {}});
        ops_.push_back({it->second, o.iteration});
    }

    std::int64_t iteration(std::size_t op) const { return ops_[op].iteration; }

    const SpanText& of(std::size_t op, const char* phase) {
        Distinct& d = distinct_[ops_[op].distinct];
        for (const auto& [p, text] : d.phases)
            if (p == phase) return text;
        const std::string name = json_string("#" + std::to_string(d.id) + " " + d.op);
        SpanText t;
        t.head = ",\n{\"name\": " + name.substr(0, name.size() - 1);  // the quote comes later
        if (phase) (t.head += ' ') += phase;
        t.middle = std::string("\", \"cat\": \"") + (phase ? "phase" : "operator") +
                   "\", \"ph\": \"X\", \"ts\": ";
        t.tail = ", \"pid\": " + pid_ +
                 ", \"tid\": " + std::to_string(phase ? kPhaseTrack : kOperatorTrack) +
                 ", \"args\": {\"id\": " + std::to_string(d.id) + ", \"op\": " + json_string(d.op) +
                 ", \"phase\": \"" + (phase ? phase : "operator") + "\"";
        return d.phases.emplace_back(phase, std::move(t)).second;
    }

  private:
    struct Distinct {
        std::int64_t id;
        std::string op;
        std::vector<std::pair<const char*, SpanText>> phases;  // a handful: linear search
    };
    struct Known {
        std::size_t distinct;
        std::int64_t iteration;
    };
    std::string pid_;
    std::map<std::pair<std::int64_t, std::string>, std::size_t> seen_;
    std::vector<Distinct> distinct_;
    std::vector<Known> ops_;
};

std::string header(const std::string& pid) {
    return "{\"traceEvents\": [\n" +
           (R"({"name": "process_name", "ph": "M", "pid": )" + pid +
            R"(, "tid": 0, "args": {"name": "rank )" + pid + "\"}},\n") +
           (R"({"name": "thread_name", "ph": "M", "pid": )" + pid + ", \"tid\": " +
            std::to_string(kOperatorTrack) + R"(, "args": {"name": "operators"}},)" + "\n") +
           (R"({"name": "thread_name", "ph": "M", "pid": )" + pid +
            ", \"tid\": " + std::to_string(kPhaseTrack) + R"(, "args": {"name": "phases"}})");
}

}  // namespace

TraceFile::TraceFile(fs::path path, int rank, TraceTimeBase time)
    : path_(std::move(path)),
      temp_(path_.string() + ".tmp-" + std::to_string(::getpid())),
      rank_(rank),
      time_(time) {
    thread_ = std::thread([this] { write_all(); });
}

TraceFile::~TraceFile() {
    if (!thread_.joinable()) return;
    {
        const std::lock_guard lock(mutex_);
        ending_ = true;
        ending_how_.abandon = true;
    }
    wake_.notify_one();
    thread_.join();
    std::error_code ignored;
    fs::remove(temp_, ignored);
}

void TraceFile::append(TraceBatch batch) {
    {
        const std::lock_guard lock(mutex_);
        queue_.push_back(std::move(batch));
    }
    wake_.notify_one();
}

void TraceFile::finish(std::size_t dropped, std::size_t max_spans,
                       TraceClock::time_point last_end) {
    {
        const std::lock_guard lock(mutex_);
        ending_ = true;
        ending_how_ = {false, dropped, max_spans, last_end};
    }
    wake_.notify_one();
    thread_.join();
    std::error_code ec;
    if (error_.empty()) {
        fs::rename(temp_, path_, ec);
        if (!ec) return;
        error_ = "--trace: cannot rename " + temp_.string() + " to " + path_.string() + " (" +
                 ec.message() + ")";
    }
    fs::remove(temp_, ec);
    throw Error(error_, {}, ErrorKind::Failed);
}

void TraceFile::write_all() try {
    std::ofstream out(temp_, std::ios::binary);
    const std::string pid = std::to_string(rank_);
    std::string buf;
    buf.reserve(kFlushBytes + 4096);
    buf += header(pid);
    SpanTexts texts(pid);
    Ending how;
    for (;;) {
        TraceBatch batch;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return ending_ || !queue_.empty(); });
            if (ending_ && (ending_how_.abandon || queue_.empty())) {
                how = ending_how_;
                break;
            }
            batch = std::move(queue_.front());
            queue_.pop_front();
        }
        for (const TraceOperator& o : batch.ops) texts.add(o);
        for (const TraceSpan& s : batch.spans) {
            const SpanText& t = texts.of(s.op, s.phase);
            const std::int64_t iteration = texts.iteration(s.op);
            const std::int64_t ts = time_.us(s.start), dur = time_.us(s.end) - ts;
            buf += t.head;
            if (iteration) append_integer(buf += kAt, iteration);
            buf += t.middle;
            append_integer(buf, ts);
            append_integer(buf += kDuration, dur);
            buf += t.tail;
            if (iteration) append_integer(buf += kIteration, iteration);
            buf += kEnd;
            if (buf.size() >= kFlushBytes) {
                out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
                buf.clear();
            }
        }
    }
    if (how.abandon) return;
    if (how.dropped > 0)
        buf += ",\n{\"name\": \"trace truncated: " + std::to_string(how.dropped) +
               " later spans not kept (the first " + std::to_string(how.max_spans) +
               " are)\", \"cat\": \"truncated\", \"ph\": \"i\", \"s\": \"p\", \"ts\": " +
               std::to_string(time_.us(how.last_end)) + ", \"pid\": " + pid +
               ", \"tid\": " + std::to_string(kOperatorTrack) +
               ", \"args\": {\"dropped\": " + std::to_string(how.dropped) + "}}";
    buf += "\n], \"displayTimeUnit\": \"ms\"}\n";
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    out.close();
    if (!out) error_ = "--trace: cannot write " + temp_.string();
} catch (const std::exception& e) {  // e.g. out of memory: the run fails, not the process
    error_ = "--trace: cannot write " + temp_.string() + " (" + e.what() + ")";
}

}  // namespace tra::runtime
