#pragma once
// `tra run --trace DIR` (docs/runtime.md, "Traces"): the spans of one rank's run, kept in memory
// while it runs and written once at the end as DIR/rank-R.json in the Chrome/Perfetto
// trace-event format, so tracing costs a clock read and a vector append per span when on and a
// branch when off. Every rank's file shares one time base (the system clock at the tracer's
// start, advanced by the steady clock), so the files of a run can be opened together.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace tra::runtime {

class TraceRecorder {
  public:
    using Clock = std::chrono::steady_clock;
    // A long loop would grow the spans without bound: the first kMaxSpans (about 40 MB) are
    // kept, the rest counted, and the file says how many were left out.
    static constexpr std::size_t kMaxSpans = std::size_t{1} << 20;

    // Off: every call does nothing.
    TraceRecorder() = default;
    // On: records for `rank` and writes into `dir`, which it creates now (throws Error, BadInput,
    // when it cannot, so a bad folder is refused before any work).
    // At most max_spans spans are kept (kMaxSpans by default; tests pass fewer).
    TraceRecorder(const std::string& dir, int rank, std::size_t max_spans = kMaxSpans);

    bool on() const { return on_; }

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
    Span span(const char* phase) { return Span(on_ ? this : nullptr, phase); }

    // The whole of the current operator, from `start`: its own track.
    void operator_done(Clock::time_point start);

    static Clock::time_point now() { return Clock::now(); }

    // Writes DIR/rank-R.json under a temporary name, then renames it (a reader never sees half
    // a file). Throws Error (Failed) when it cannot.
    void write() const;

  private:
    struct Event {
        const char* phase;  // null: the whole operator
        std::size_t op;     // index into ops_
        Clock::time_point start, end;
    };
    struct Operator {
        std::int64_t id;
        std::string op;
        std::int64_t iteration;  // 0: not in a loop
    };
    void add(const char* phase, Clock::time_point start, Clock::time_point end);

    bool on_ = false;
    std::string dir_;
    int rank_ = 0;
    Clock::time_point steady0_{};
    std::int64_t epoch_us0_ = 0;  // system clock at steady0_, microseconds since the epoch
    std::size_t max_spans_ = kMaxSpans;
    std::size_t dropped_ = 0;
    std::int64_t iteration_ = 0;
    std::vector<Operator> ops_;
    std::vector<Event> events_;
};

}  // namespace tra::runtime
