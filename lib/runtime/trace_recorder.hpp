#pragma once
// `tra run --trace DIR` (docs/runtime.md, "Traces"): the spans of one rank's run, recorded as it
// runs and handed in batches to DIR/rank-R.json (trace_file.hpp, the Chrome/Perfetto
// trace-event format, written on a thread of its own), so tracing costs two clock reads and a
// vector append per span when on and a branch when off. Every rank's file shares one time base
// (the system clock at the tracer's start, advanced by the steady clock), so the files of a run
// can be opened together.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/trace_file.hpp"

namespace tra::runtime {

class TraceRecorder {
  public:
    using Clock = TraceClock;
    // A long loop would grow the file (and, were the file system slower than the run, the
    // spans waiting for it) without bound: the first kMaxSpans (about 200 MB of file) are kept,
    // the rest counted, and the file says how many were left out.
    static constexpr std::size_t kMaxSpans = std::size_t{1} << 20;
    // Spans are handed to the file's thread about this many at a time, at an operator's end.
    static constexpr std::size_t kBatchSpans = 1024;

    // Off: every call does nothing.
    TraceRecorder() = default;
    // On: records for `rank` and writes into `dir`, which it creates now (throws Error, BadInput,
    // when it cannot, so a bad folder is refused before any work), starting the file's thread.
    // At most max_spans spans are kept (kMaxSpans by default; tests pass fewer).
    TraceRecorder(const std::string& dir, int rank, std::size_t max_spans = kMaxSpans);

    bool on() const { return file_ != nullptr; }

    // The operator the next spans belong to (an IA node id and its op, as in the report).
    void set_operator(std::int64_t id, const std::string& op);
    // In a loop (`repeat:`), the iteration (1-based) the next operators belong to: their spans
    // are named "#ID OP @K" and carry "iteration": K, so one iteration can be told from the next.
    void set_iteration(std::int64_t iteration) { iteration_ = iteration; }

    // A span of one phase (read, pack, post, wait, compute, unpack, write) of the current
    // operator, from its construction to its end() or destruction.
    class Span {
      public:
        Span(TraceRecorder* recorder, const char* phase);
        Span(const Span&) = delete;
        Span& operator=(const Span&) = delete;
        ~Span() { end(); }
        void end();

      private:
        TraceRecorder* recorder_;  // null when off or ended
        const char* phase_;
        Clock::time_point start_;
    };
    Span span(const char* phase) { return Span(on() ? this : nullptr, phase); }

    // The whole of the current operator, from `start`: its own track.
    void operator_done(Clock::time_point start);

    static Clock::time_point now() { return Clock::now(); }

    // Completes DIR/rank-R.json (written under a temporary name, then renamed: a reader never
    // sees half a file), waiting for the spans not yet written. Throws Error (Failed) when it
    // cannot. A recorder destroyed without it (a failed run) leaves no file. After it the
    // recorder is off.
    void write();

  private:
    void add(const char* phase, Clock::time_point start, Clock::time_point end);
    void hand_over();

    std::size_t max_spans_ = kMaxSpans;
    std::size_t kept_ = 0, dropped_ = 0;
    std::size_t operators_ = 0;  // handed over or pending
    std::int64_t iteration_ = 0;
    Clock::time_point last_end_{};
    TraceBatch pending_;
    std::unique_ptr<TraceFile> file_;  // null: off (never on, or written)
};

}  // namespace tra::runtime
