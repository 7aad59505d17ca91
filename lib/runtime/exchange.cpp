#include "runtime/exchange.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <string>

#include "core/error.hpp"
#include "runtime/message_segments.hpp"

namespace tra::runtime {

namespace {

[[noreturn]] void fail(const std::string& message) {
    throw Error(message, {}, ErrorKind::Failed);
}

std::size_t message_bytes(std::size_t tuples, const RelationType& type) {
    return sizeof(std::int64_t) +
           tuples * (type.key_arity * sizeof(std::int64_t) + type.tile_bytes());
}

// Posts one protocol message as pieces of at most `limit` bytes (each fits an int count).
void post_pieces(MessageBuffer& buf, std::size_t limit, bool receive, int peer, int tag,
                 MPI_Comm comm, std::vector<MPI_Request>& requests) {
    for (std::size_t at = 0; at < buf.size(); at += limit) {
        const int n = static_cast<int>(std::min(limit, buf.size() - at));
        requests.emplace_back();
        if (receive)
            MPI_Irecv(static_cast<char*>(buf.data()) + at, n, MPI_BYTE, peer, tag, comm,
                      &requests.back());
        else
            MPI_Isend(static_cast<char*>(buf.data()) + at, n, MPI_BYTE, peer, tag, comm,
                      &requests.back());
    }
}

void put(MessageBuffer& buf, std::size_t& at, const void* data, std::size_t n,
         Residence where = Residence::Host) {
    buf.write(at, data, n, where);
    at += n;
}

template <class T>
T get(const MessageBuffer& buf, std::size_t& at) {
    T v{};
    buf.read(at, &v, sizeof v, Residence::Host);
    at += sizeof v;
    return v;
}

void check_outgoing(const OutgoingTuple& tuple, const RelationType& type) {
    const auto& [key, tile] = tuple;
    if (key->size() != type.key_arity || tile->dtype() != type.dtype || tile->shape() != type.bound)
        fail("exchange: tuple " + key->str() + " does not have the relation's type " + type.str());
}

// Every piece of every receive request arrived, summing to what the plan says per source.
void check_received(const std::vector<MPI_Status>& statuses,
                    const std::vector<std::size_t>& sources,
                    const std::vector<std::size_t>& expected_bytes) {
    std::vector<std::size_t> got(expected_bytes.size(), 0);
    for (std::size_t r = 0; r < sources.size(); ++r) {
        int piece = 0;
        MPI_Get_count(&statuses[r], MPI_BYTE, &piece);
        got[sources[r]] += static_cast<std::size_t>(piece);
    }
    for (std::size_t s = 0; s < got.size(); ++s)
        if (got[s] != expected_bytes[s])
            fail("exchange: rank " + std::to_string(s) + " sent " + std::to_string(got[s]) +
                 " bytes, the plan says " + std::to_string(expected_bytes[s]));
}

void wait_all(std::vector<MPI_Request>& requests, std::vector<MPI_Status>& statuses) {
    statuses.resize(requests.size());
    if (MPI_Waitall(static_cast<int>(requests.size()), requests.data(), statuses.data()) !=
        MPI_SUCCESS)
        fail("exchange: MPI_Waitall failed");
}

// The exchange on host memory: messages go out of and into the tiles themselves
// (MessageSegments), not through packed buffers. Same messages, checks and counts as the
// packed path below.
ExchangeStats exchange_in_place(MPI_Comm comm, int tag, const RelationType& type,
                                const std::vector<std::vector<OutgoingTuple>>& send,
                                const std::vector<std::vector<Key>>& expect,
                                const std::function<void(int, Key, Tile)>& deliver,
                                std::size_t limit, int me) {
    const std::size_t n = send.size(), arity = type.key_arity, tile_bytes = type.tile_bytes();
    ExchangeStats stats;
    std::vector<std::int64_t> counts(n, 0), sent_counts(n, 0);
    std::vector<std::vector<std::int64_t>> keys(n), sent_keys(n);
    std::vector<std::vector<Tile>> tiles(n);
    std::vector<MPI_Request> requests;
    std::vector<std::size_t> sources, expected_bytes(n, 0);
    for (std::size_t s = 0; s < n; ++s) {
        if (static_cast<int>(s) == me || expect[s].empty()) continue;
        MessageSegments message;
        message.add(&counts[s], sizeof counts[s]);
        keys[s].resize(expect[s].size() * arity);
        for (std::size_t i = 0; i < expect[s].size(); ++i) {
            tiles[s].push_back(Tile::uninitialized(type.dtype, type.bound));  // received into
            message.add(keys[s].data() + i * arity, arity * sizeof(std::int64_t));
            message.add(tiles[s].back().raw(), tile_bytes);
        }
        expected_bytes[s] = message.size();
        stats.buffer_bytes += static_cast<std::int64_t>(sizeof counts[s] + keys[s].size() * 8);
        message.post(limit, true, static_cast<int>(s), tag, comm, requests);
        sources.resize(requests.size(), s);
    }
    for (std::size_t d = 0; d < n; ++d) {
        if (static_cast<int>(d) == me || send[d].empty()) continue;
        sent_counts[d] = static_cast<std::int64_t>(send[d].size());
        for (const auto& tuple : send[d]) {
            check_outgoing(tuple, type);
            if (tuple.second->on_device()) fail("exchange: a tile on the GPU in a host exchange");
            sent_keys[d].insert(sent_keys[d].end(), tuple.first->begin(), tuple.first->end());
        }
        MessageSegments message;
        message.add(&sent_counts[d], sizeof sent_counts[d]);
        for (std::size_t i = 0; i < send[d].size(); ++i) {
            message.add(sent_keys[d].data() + i * arity, arity * sizeof(std::int64_t));
            message.add(send[d][i].second->raw(), tile_bytes);
        }
        stats.buffer_bytes +=
            static_cast<std::int64_t>(sizeof(std::int64_t) * (1 + sent_keys[d].size()));
        message.post(limit, false, static_cast<int>(d), tag, comm, requests);
    }
    std::vector<MPI_Status> statuses;
    wait_all(requests, statuses);
    check_received(statuses, sources, expected_bytes);

    for (std::size_t s = 0; s < n; ++s) {
        if (expected_bytes[s] == 0) continue;
        stats.overhead_bytes += static_cast<std::int64_t>(sizeof counts[s]);
        if (counts[s] != static_cast<std::int64_t>(expect[s].size()))
            fail("exchange: rank " + std::to_string(s) + " sent " + std::to_string(counts[s]) +
                 " tuples, the plan says " + std::to_string(expect[s].size()));
        for (std::size_t i = 0; i < expect[s].size(); ++i) {
            Key key(std::vector<std::int64_t>(
                keys[s].begin() + static_cast<std::ptrdiff_t>(i * arity),
                keys[s].begin() + static_cast<std::ptrdiff_t>((i + 1) * arity)));
            stats.overhead_bytes += static_cast<std::int64_t>(arity * sizeof(std::int64_t));
            if (key != expect[s][i])
                fail("exchange: rank " + std::to_string(s) + " sent tuple " + key.str() +
                     " where the plan says " + expect[s][i].str());
            stats.payload_bytes += static_cast<std::int64_t>(tile_bytes);
            deliver(static_cast<int>(s), std::move(key), std::move(tiles[s][i]));
        }
    }
    return stats;
}

}  // namespace

ExchangeStats exchange(MPI_Comm comm, int tag, const RelationType& type,
                       const std::vector<std::vector<OutgoingTuple>>& send,
                       const std::vector<std::vector<Key>>& expect,
                       const std::function<void(int, Key, Tile)>& deliver,
                       const ExchangeMemory& memory, std::size_t max_message_bytes) {
    int me = 0, size = 0;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    const auto n = static_cast<std::size_t>(size);
    if (send.size() != n || expect.size() != n) fail("exchange: one list per rank expected");
    const std::size_t tile_bytes = type.tile_bytes();
    const std::size_t limit = std::min<std::size_t>(max_message_bytes, INT_MAX);
    if (limit == 0) fail("exchange: the message limit must be at least one byte");
    if (memory.tiles == Residence::Host && memory.messages == MessageBuffer::Kind::Host)
        return exchange_in_place(comm, tag, type, send, expect, deliver, limit, me);
    ExchangeStats stats;

    std::vector<MessageBuffer> out(n), in(n);
    std::vector<MPI_Request> requests;
    std::vector<std::size_t> sources;  // the rank of each receive request (the first ones)
    for (std::size_t s = 0; s < n; ++s) {
        if (static_cast<int>(s) == me || expect[s].empty()) continue;
        in[s] = MessageBuffer(message_bytes(expect[s].size(), type), memory.messages);
        stats.buffer_bytes += static_cast<std::int64_t>(in[s].size());
        post_pieces(in[s], limit, true, static_cast<int>(s), tag, comm, requests);
        sources.resize(requests.size(), s);
    }
    for (std::size_t d = 0; d < n; ++d) {
        if (static_cast<int>(d) == me || send[d].empty()) continue;
        auto& buf = out[d];
        buf = MessageBuffer(message_bytes(send[d].size(), type), memory.messages);
        stats.buffer_bytes += static_cast<std::int64_t>(buf.size());
        std::size_t at = 0;
        const auto count = static_cast<std::int64_t>(send[d].size());
        put(buf, at, &count, sizeof count);
        for (const auto& [key, tile] : send[d]) {
            check_outgoing({key, tile}, type);
            for (std::size_t i = 0; i < key->size(); ++i) {
                const std::int64_t v = (*key)[i];
                put(buf, at, &v, sizeof v);
            }
            put(buf, at, tile->address(), tile_bytes, tile->residence());
        }
        post_pieces(buf, limit, false, static_cast<int>(d), tag, comm, requests);
    }
    std::vector<MPI_Status> statuses;
    wait_all(requests, statuses);
    for (auto& buf : out) buf = MessageBuffer();
    std::vector<std::size_t> expected_bytes(n);
    for (std::size_t s = 0; s < n; ++s) expected_bytes[s] = in[s].size();
    check_received(statuses, sources, expected_bytes);

    for (std::size_t s = 0; s < n; ++s) {
        if (in[s].empty()) continue;
        const auto& buf = in[s];
        std::size_t at = 0;
        const auto count = get<std::int64_t>(buf, at);
        stats.overhead_bytes += static_cast<std::int64_t>(sizeof count);
        if (count != static_cast<std::int64_t>(expect[s].size()))
            fail("exchange: rank " + std::to_string(s) + " sent " + std::to_string(count) +
                 " tuples, the plan says " + std::to_string(expect[s].size()));
        for (const Key& want : expect[s]) {
            Key key;
            for (std::size_t i = 0; i < type.key_arity; ++i)
                key.push_back(get<std::int64_t>(buf, at));
            stats.overhead_bytes +=
                static_cast<std::int64_t>(type.key_arity * sizeof(std::int64_t));
            if (key != want)
                fail("exchange: rank " + std::to_string(s) + " sent tuple " + key.str() +
                     " where the plan says " + want.str());
            Tile tile = Tile::uninitialized(type.dtype, type.bound, memory.tiles);  // read below
            buf.read(at, tile.address(), tile_bytes, memory.tiles);
            at += tile_bytes;
            stats.payload_bytes += static_cast<std::int64_t>(tile_bytes);
            deliver(static_cast<int>(s), std::move(key), std::move(tile));
        }
        if (at != buf.size())
            fail("exchange: a message from rank " + std::to_string(s) + " has trailing bytes");
    }
    return stats;
}

}  // namespace tra::runtime
