#pragma once
// One rank's `--trace` file (docs/runtime.md, "Traces"), written on a thread of its own while
// the run goes on: the recorder (trace_recorder.hpp) hands it its spans in batches, and the run
// waits only for the last batch, the close and the rename. Written at the end instead, a loop's
// megabyte of spans cost a few percent of a 100 ms run in the file system alone.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tra::runtime {

using TraceClock = std::chrono::steady_clock;

// An operator the spans after it belong to: an IA node id, its op, and in a loop the
// iteration (1-based; 0 outside a loop).
struct TraceOperator {
    std::int64_t id;
    std::string op;
    std::int64_t iteration;
};

struct TraceSpan {
    const char* phase;  // null: the whole operator; else a string literal
    std::size_t op;     // index into every TraceOperator handed over so far
    TraceClock::time_point start, end;
};

// What the recorder hands over at once: the operators new since the last batch (appended to
// the earlier ones) and spans that may refer to any operator handed over so far.
struct TraceBatch {
    std::vector<TraceOperator> ops;
    std::vector<TraceSpan> spans;
};

// The file's times: microseconds since the epoch by this rank's system clock at `steady0`,
// advanced by the steady clock, so every rank's file shares one time base.
struct TraceTimeBase {
    TraceClock::time_point steady0;
    std::int64_t epoch_us0;
    std::int64_t us(TraceClock::time_point t) const {
        return epoch_us0 +
               std::chrono::duration_cast<std::chrono::microseconds>(t - steady0).count();
    }
};

class TraceFile {
  public:
    // Starts the thread, which creates `path` under a temporary name (path + ".tmp-PID").
    TraceFile(std::filesystem::path path, int rank, TraceTimeBase time);
    TraceFile(const TraceFile&) = delete;
    TraceFile& operator=(const TraceFile&) = delete;
    // Unfinished (a failed run): stops the thread and removes the temporary.
    ~TraceFile();

    // Queues a batch; returns at once.
    void append(TraceBatch batch);

    // Ends the file (with an instant event saying how many spans were `dropped` past
    // `max_spans`, if any, at `last_end`), waits for the thread, and renames the temporary to
    // the path. Throws Error (Failed) when the file could not be written, removing it.
    void finish(std::size_t dropped, std::size_t max_spans, TraceClock::time_point last_end);

  private:
    struct Ending {
        bool abandon = false;  // a failed run: nothing more is written
        std::size_t dropped = 0, max_spans = 0;
        TraceClock::time_point last_end{};
    };
    void write_all();  // the thread

    std::filesystem::path path_, temp_;
    int rank_;
    TraceTimeBase time_;

    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<TraceBatch> queue_;  // guarded by mutex_
    bool ending_ = false;           // guarded by mutex_
    Ending ending_how_;             // guarded by mutex_
    std::string error_;             // the thread's, read after join
    std::thread thread_;
};

}  // namespace tra::runtime
