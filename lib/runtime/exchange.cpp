#include "runtime/exchange.hpp"

#include <algorithm>
#include <climits>
#include <string>

#include "core/error.hpp"

namespace tra::runtime {

namespace {

// Every piece of every receive request arrived, summing to what the plan says per source.
void check_received(const std::vector<MPI_Status>& statuses,
                    const std::vector<std::size_t>& sources,
                    const std::vector<ProtocolMessage>& incoming) {
    std::vector<std::size_t> got(incoming.size(), 0);
    for (std::size_t r = 0; r < sources.size(); ++r) {
        int piece = 0;
        MPI_Get_count(&statuses[r], MPI_BYTE, &piece);
        got[sources[r]] += static_cast<std::size_t>(piece);
    }
    for (std::size_t s = 0; s < got.size(); ++s)
        if (got[s] != incoming[s].size())
            fail("exchange: rank " + std::to_string(s) + " sent " + std::to_string(got[s]) +
                 " bytes, the plan says " + std::to_string(incoming[s].size()));
}

void wait_all(std::vector<MPI_Request>& requests, std::vector<MPI_Status>& statuses,
              const RunWatchdog& watchdog) {
    if (watchdog.wait_all(requests, statuses) != MPI_SUCCESS) fail("exchange: MPI_Waitall failed");
}

// Checks a message that arrived from `source` against the keys the plan expects, counts its
// bytes and delivers its tuples in message order.
void deliver_message(ProtocolMessage& message, std::size_t source, const std::vector<Key>& expect,
                     const RelationType& type, ExchangeStats& stats,
                     const std::function<void(int, Key, Tile)>& deliver) {
    stats.overhead_bytes += static_cast<std::int64_t>(sizeof(std::int64_t));
    if (message.count() != static_cast<std::int64_t>(expect.size()))
        fail("exchange: rank " + std::to_string(source) + " sent " +
             std::to_string(message.count()) + " tuples, the plan says " +
             std::to_string(expect.size()));
    for (std::size_t i = 0; i < expect.size(); ++i) {
        Key key = message.key(i);
        stats.overhead_bytes += static_cast<std::int64_t>(type.key_arity * sizeof(std::int64_t));
        if (key != expect[i])
            fail("exchange: rank " + std::to_string(source) + " sent tuple " + key.str() +
                 " where the plan says " + expect[i].str());
        stats.payload_bytes += static_cast<std::int64_t>(type.tile_bytes());
        deliver(static_cast<int>(source), std::move(key), message.take_tile(i));
    }
}

}  // namespace

ExchangeStats exchange(MPI_Comm comm, int tag, const RelationType& type,
                       const std::vector<std::vector<OutgoingTuple>>& send,
                       const std::vector<std::vector<Key>>& expect,
                       const std::function<void(int, Key, Tile)>& deliver,
                       const ExchangeMemory& memory, std::size_t max_message_bytes,
                       TraceRecorder* trace, const RunWatchdog* watchdog) {
    const RunWatchdog unwatched;  // waits as MPI_Waitall
    TraceRecorder off;            // trace: the phases below record nothing without a recorder
    TraceRecorder& tracer = trace ? *trace : off;
    int me = 0, size = 0;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    const auto n = static_cast<std::size_t>(size);
    if (send.size() != n || expect.size() != n) fail("exchange: one list per rank expected");
    const std::size_t limit = std::min<std::size_t>(max_message_bytes, INT_MAX);
    if (limit == 0) fail("exchange: the message limit must be at least one byte");
    const auto peer = [me](std::size_t r, const auto& lists) {
        return static_cast<int>(r) != me && !lists[r].empty();
    };
    ExchangeStats stats;

    // 1. Prepare every message: receive memory allocated, sends laid out (and packed when staged).
    auto pack = tracer.span("pack");  // trace
    std::vector<ProtocolMessage> incoming(n), outgoing(n);
    for (std::size_t s = 0; s < n; ++s)
        if (peer(s, expect)) {
            incoming[s] =
                ProtocolMessage::incoming(expect[s].size(), type, memory, static_cast<int>(s));
            stats.buffer_bytes += incoming[s].held_bytes();
        }
    for (std::size_t d = 0; d < n; ++d)
        if (peer(d, send)) {
            outgoing[d] = ProtocolMessage::outgoing(send[d], type, memory, static_cast<int>(d));
            stats.buffer_bytes += outgoing[d].held_bytes();
        }
    // 2. Nothing is posted before the copies of step 1 have finished (protocol_message.hpp).
    make_ready(incoming, outgoing);
    pack.end();  // trace

    // 3. Post the receives, then the sends, and wait for all of them.
    auto post = tracer.span("post");  // trace
    std::vector<MPI_Request> requests;
    std::vector<std::size_t> sources;  // the rank of each receive request (the first ones)
    for (std::size_t s = 0; s < n; ++s)
        if (!incoming[s].empty()) {
            incoming[s].post(limit, static_cast<int>(s), tag, comm, requests);
            sources.resize(requests.size(), s);
        }
    for (std::size_t d = 0; d < n; ++d)
        if (!outgoing[d].empty()) outgoing[d].post(limit, static_cast<int>(d), tag, comm, requests);
    post.end();                       // trace
    auto wait = tracer.span("wait");  // trace
    std::vector<MPI_Status> statuses;
    wait_all(requests, statuses, watchdog ? *watchdog : unwatched);
    wait.end();  // trace
    outgoing.clear();
    check_received(statuses, sources, incoming);

    // 4. Unpack and check what arrived, source by source.
    auto unpack = tracer.span("unpack");  // trace
    for (std::size_t s = 0; s < n; ++s) {
        if (incoming[s].empty()) continue;
        incoming[s].unpack();
        deliver_message(incoming[s], s, expect[s], type, stats, deliver);
        incoming[s] = ProtocolMessage();  // its staging buffer is no longer needed
    }
    return stats;
}

}  // namespace tra::runtime
