#include "runtime/protocol_message.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"

namespace tra::runtime {

namespace {

void check_outgoing(const OutgoingTuple& tuple, const RelationType& type) {
    const auto& [key, tile] = tuple;
    if (key->size() != type.key_arity || tile->dtype() != type.dtype || tile->shape() != type.bound)
        fail("exchange: tuple " + key->str() + " does not have the relation's type " + type.str());
}

// Posts a staging buffer as pieces of at most `limit` bytes (each fits an int count), by its
// address: a CUDA-aware MPI tells device memory from host memory itself.
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

// The staging buffer of a message to or from `peer`: the pool's, when the exchange has one.
MessageBuffer staging_buffer(const ExchangeMemory& memory, int peer, MessagePool::Direction way,
                             std::size_t bytes) {
    if (!memory.pool) return MessageBuffer(bytes, memory.messages);
    return memory.pool->lease(peer, way, memory.messages, bytes);
}

}  // namespace

ProtocolMessage::ProtocolMessage(std::size_t tuples, const RelationType& type,
                                 const ExchangeMemory& memory, bool receive)
    : receive_(receive),
      memory_(memory),
      type_(type),
      tuples_(tuples),
      size_(sizeof(std::int64_t) +
            tuples * (type.key_arity * sizeof(std::int64_t) + type.tile_bytes())),
      header_(1 + tuples * type.key_arity, 0) {}

ProtocolMessage ProtocolMessage::outgoing(const std::vector<OutgoingTuple>& tuples,
                                          const RelationType& type, const ExchangeMemory& memory,
                                          int peer) {
    ProtocolMessage m(tuples.size(), type, memory, false);
    m.header_[0] = static_cast<std::int64_t>(tuples.size());
    for (std::size_t i = 0; i < tuples.size(); ++i) {
        check_outgoing(tuples[i], type);
        if (!memory.staged() && tuples[i].second->on_device())
            fail("exchange: a tile on the GPU in a host exchange");
        std::copy(tuples[i].first->begin(), tuples[i].first->end(),
                  m.header_.begin() + static_cast<std::ptrdiff_t>(1 + i * type.key_arity));
    }
    MessageSegments layout = m.layout(&tuples);
    if (memory.staged()) {
        m.staging_ = staging_buffer(memory, peer, MessagePool::Direction::Send, m.size_);
        layout.pack(m.staging_);
    } else {
        m.in_place_ = std::move(layout);
    }
    return m;
}

ProtocolMessage ProtocolMessage::incoming(std::size_t tuples, const RelationType& type,
                                          const ExchangeMemory& memory, int peer) {
    ProtocolMessage m(tuples, type, memory, true);
    // Received tiles are allocated when their memory is first needed: in place before posting
    // (MPI receives into them), staged on unpacking, so they never coexist with the buffers of
    // messages still on their way.
    if (memory.staged()) {
        m.staging_ = staging_buffer(memory, peer, MessagePool::Direction::Receive, m.size_);
    } else {
        for (std::size_t i = 0; i < tuples; ++i)
            m.tiles_.push_back(Tile::uninitialized(type.dtype, type.bound));  // received into
        m.in_place_ = m.layout(nullptr);
    }
    return m;
}

MessageSegments ProtocolMessage::layout(const std::vector<OutgoingTuple>* sent) const {
    const std::size_t arity = type_.key_arity;
    MessageSegments layout;
    layout.add(header_.data(), sizeof(std::int64_t));
    for (std::size_t i = 0; i < tuples_; ++i) {
        layout.add(header_.data() + 1 + i * arity, arity * sizeof(std::int64_t));
        const Tile& tile = sent ? *(*sent)[i].second : tiles_[i];
        layout.add(tile.address(), type_.tile_bytes(), tile.residence());
    }
    return layout;
}

std::int64_t ProtocolMessage::held_bytes() const {
    if (memory_.staged()) return static_cast<std::int64_t>(staging_.size());
    return static_cast<std::int64_t>(header_.size() * sizeof(std::int64_t));
}

void ProtocolMessage::post(std::size_t limit, int peer, int tag, MPI_Comm comm,
                           std::vector<MPI_Request>& requests) {
    if (!ready_) fail("exchange: a message was posted before make_ready (protocol_message.hpp)");
    if (memory_.staged())
        post_pieces(staging_, limit, receive_, peer, tag, comm, requests);
    else
        in_place_.post(limit, receive_, peer, tag, comm, requests);
}

void ProtocolMessage::unpack() {
    if (!memory_.staged()) return;  // MPI wrote into the header and the tiles themselves
    for (std::size_t i = 0; i < tuples_; ++i)
        tiles_.push_back(Tile::uninitialized(type_.dtype, type_.bound, memory_.tiles));
    layout(nullptr).unpack(staging_);
}

Key ProtocolMessage::key(std::size_t i) const {
    const auto first = header_.begin() + static_cast<std::ptrdiff_t>(1 + i * type_.key_arity);
    return Key(
        std::vector<std::int64_t>(first, first + static_cast<std::ptrdiff_t>(type_.key_arity)));
}

void make_ready(std::vector<ProtocolMessage>& incoming, std::vector<ProtocolMessage>& outgoing) {
    const auto staged = [](const ProtocolMessage& m) { return !m.empty() && m.memory_.staged(); };
    if (std::any_of(incoming.begin(), incoming.end(), staged) ||
        std::any_of(outgoing.begin(), outgoing.end(), staged))
        device_memory().synchronize();
    for (ProtocolMessage& m : incoming) m.ready_ = true;
    for (ProtocolMessage& m : outgoing) m.ready_ = true;
}

}  // namespace tra::runtime
