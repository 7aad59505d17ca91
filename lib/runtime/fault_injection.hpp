#pragma once
// A test-only fault hook, so failure behaviour is tested deterministically rather than by timing
// (docs/runtime.md, "Failure behaviour"). The environment variable
//
//     TRA_FAULT=ACTION@RANK:OPERATOR[#ITERATION]
//
// makes rank RANK, when it reaches OPERATOR (an IA node id as `tra explain` lists them, or an op
// name such as shuffle, bcast, read, local_join, write: the first operator of that kind), either
//   error  throw a tra::Error (Failed) "injected fault", as a kernel failure or bad tile would;
//   kill   raise SIGKILL on itself, as `kill -9` would;
//   hang   sleep until the job is ended, as a rank stuck in a kernel or a file system would
//          (`tra run --timeout` or the per-operator limit ends it: run_watchdog.hpp);
//   corrupt  change one element of the first tile (in key order) the operator produces on that
//          rank, x -> -x - sign(x) (off by at least 1), as silent data corruption would, and
//          go on: only `tra run --verify` notices (output_verification.hpp). A rank that
//          produces no tile of that operator fails, saying so, so a test learns to pick
//          another rank rather than pass unnoticed. Enforcers are not corrupted.
// In a loop (Program::repeat) the fault fires in iteration ITERATION (default 1, the first).
// An enforcer reaches the hook after posting nothing, just before its exchange: its peers are then
// waiting for its messages (a rank dying during a shuffle). Unset, the hook does nothing.
#include <cstdint>
#include <optional>
#include <string>

#include "runtime/held_tuples.hpp"

namespace tra::runtime {

class FaultInjection {
  public:
    // Reads TRA_FAULT; throws Error (BadInput) naming the variable when it is malformed.
    static FaultInjection from_environment();

    // The loop iteration the run is in (1-based); faults fire only in their own.
    void set_iteration(std::int64_t iteration) { iteration_ = iteration; }
    // Fires the fault if this is its rank and operator (and it has not fired yet).
    void reach(int rank, std::int64_t node_id, const std::string& op_name);
    // The corrupt action, after a local operator computed `out` on this rank.
    void corrupt(int rank, std::int64_t node_id, const std::string& op_name, HeldTuples& out);

  private:
    enum class Action { Error, Kill, Hang, Corrupt };
    bool matches(int rank, std::int64_t node_id, const std::string& op_name) const;
    struct Fault {
        Action action;
        int rank;
        std::optional<std::int64_t> node_id;  // else the first operator named op_name
        std::string op_name;
        std::int64_t iteration = 1;
    };
    std::optional<Fault> fault_;
    std::int64_t iteration_ = 1;
};

}  // namespace tra::runtime
