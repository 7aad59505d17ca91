#pragma once
// One exchange of tuples between ranks (docs/runtime.md, "Exchange protocol"). Both sides know,
// from the plan, exactly which tuples travel from which sender to which receiver, so there is no
// size negotiation: each (sender, receiver) pair that exchanges at least one tuple carries one
// point-to-point message
//
//     [int64 count] then count times: [key_arity int64 key values][tile bytes]
//
// and nothing else travels. The receiver checks the count and every key against what it expects
// and counts, from what it really received, the payload (tile bytes) and the overhead (8 bytes
// per key position per tuple, 8 bytes per message for the count): exactly the contract of
// lib/ia/transfer.hpp. The same protocol runs on host and device memory (protocol_message.hpp
// says how a message meets memory; exchange.cpp takes the steps, in one order, for both).
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "core/relation.hpp"
#include "runtime/protocol_message.hpp"
#include "runtime/run_watchdog.hpp"
#include "runtime/trace_recorder.hpp"

namespace tra::runtime {

struct ExchangeStats {
    std::int64_t payload_bytes = 0;   // tile bytes received
    std::int64_t overhead_bytes = 0;  // key values and count headers received
    std::int64_t buffer_bytes = 0;    // send + receive buffers held at once
};

// MPI counts are int: a message longer than this travels as consecutive pieces of at most this
// many bytes, same source, tag and communicator, which MPI delivers in order. The pieces are
// one message of the protocol (one count header); they add no bytes.
inline constexpr std::size_t kMaxMessageBytes = 1u << 30;

// send[d]: the tuples this rank sends to rank d, in the order the receiver expects them;
// expect[s]: the keys this rank receives from rank s, in order. Every tile must have the
// relation's dtype and bound. deliver(source, key, tile) is called for each received tuple, by
// source rank ascending, then in message order, with tiles in memory.tiles; sent tiles may live
// anywhere. Throws Error (Failed) when a message is not what the plan says (wrong size, count or
// key). `max_message_bytes` (tests lower it to exercise the pieces) must be the same on every
// rank. `trace`, when given, records the pack, post, wait and unpack phases (--trace);
// `watchdog`, when given, ends the run when its deadline passes in the wait (--timeout).
ExchangeStats exchange(MPI_Comm comm, int tag, const RelationType& type,
                       const std::vector<std::vector<OutgoingTuple>>& send,
                       const std::vector<std::vector<Key>>& expect,
                       const std::function<void(int, Key, Tile)>& deliver,
                       const ExchangeMemory& memory = {},
                       std::size_t max_message_bytes = kMaxMessageBytes,
                       TraceRecorder* trace = nullptr, const RunWatchdog* watchdog = nullptr);

}  // namespace tra::runtime
