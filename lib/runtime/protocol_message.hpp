#pragma once
// One message of the exchange protocol (exchange.hpp) as this rank holds it: the count header
// and key values in one host array, the tiles wherever they live, and the layout that strings
// them together in wire order ([count] then per tuple [key values][tile bytes]).
//
// How a message meets MPI depends on the exchange's memory, and on nothing else:
//   in place  (host tiles, host messages): MPI reads from and writes into the header array and
//             the tiles themselves (MessageSegments), so a tile crosses memory once;
//   staged    (GPU runs): through one MessageBuffer of pinned host or device memory (docs/gpu.md,
//             "Staging"), packed from the layout when a send is prepared and unpacked into the
//             layout after a receive arrived.
// exchange.cpp takes the same steps for both, in this order: prepare every message (outgoing,
// incoming), make_ready, post, wait for MPI, unpack.
//
// The ordering rule, kept here and nowhere else: a message is posted only once it is ready, and
// only make_ready makes messages ready, after one DeviceMemory::synchronize when any is staged.
// Copies into device memory (packing a send buffer) may still run when the call that started
// them returns, and an MPI library that reads device memory moves it on streams of its own, so
// without the wait MPI could send a buffer not yet packed, or land data in a receive buffer that
// the unpacking of the previous exchange (pooled buffers are reused) is still reading.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/relation.hpp"
#include "runtime/message_buffer.hpp"
#include "runtime/message_pool.hpp"
#include "runtime/message_segments.hpp"

namespace tra::runtime {

using OutgoingTuple = std::pair<const Key*, const Tile*>;

// Where received tiles are to live and where messages are assembled (runtime/device_context.hpp):
// all host memory on CPU runs.
struct ExchangeMemory {
    Residence tiles = Residence::Host;
    MessageBuffer::Kind messages = MessageBuffer::Kind::Host;
    // Where staged messages keep their buffers from one exchange to the next (a GPU run's, owned
    // by its DeviceContext); without one, every staged message allocates a buffer of its own.
    MessagePool* pool = nullptr;

    // Messages go through buffers of their own unless tiles and messages are both host memory.
    bool staged() const {
        return tiles != Residence::Host || messages != MessageBuffer::Kind::Host;
    }
};

class ProtocolMessage {
  public:
    ProtocolMessage() = default;  // no message: nothing travels between the two ranks

    // The message to `peer` carrying `tuples` (each of relation type `type`, checked), packed
    // when staged. Sent tiles may live anywhere on staged memory, only in host memory otherwise.
    static ProtocolMessage outgoing(const std::vector<OutgoingTuple>& tuples,
                                    const RelationType& type, const ExchangeMemory& memory,
                                    int peer);
    // The message that will bring `tuples` tuples of `type` from `peer`; received tiles live in
    // memory.tiles.
    static ProtocolMessage incoming(std::size_t tuples, const RelationType& type,
                                    const ExchangeMemory& memory, int peer);

    bool empty() const { return size_ == 0; }
    std::size_t size() const { return size_; }  // bytes on the wire
    // The memory the message holds besides tiles: its staging buffer, else its header array.
    std::int64_t held_bytes() const;

    bool ready() const { return ready_; }
    // Posts the message as pieces of at most `limit` bytes (exchange.hpp): a receive from or a
    // send to `peer`. Appends one request per piece. Throws Error (Failed) when the message is
    // not ready (make_ready), before anything is posted.
    void post(std::size_t limit, int peer, int tag, MPI_Comm comm,
              std::vector<MPI_Request>& requests);

    // After a receive completed: the header and the tiles hold what arrived.
    void unpack();
    std::int64_t count() const { return header_.at(0); }  // the count header
    Key key(std::size_t i) const;
    Tile take_tile(std::size_t i) { return std::move(tiles_.at(i)); }

  private:
    friend void make_ready(std::vector<ProtocolMessage>&, std::vector<ProtocolMessage>&);
    ProtocolMessage(std::size_t tuples, const RelationType& type, const ExchangeMemory& memory,
                    bool receive);
    // The layout over header_ and the tiles (received tiles or those of `sent`).
    MessageSegments layout(const std::vector<OutgoingTuple>* sent) const;

    bool receive_ = false;
    bool ready_ = false;  // set by make_ready only
    ExchangeMemory memory_;
    RelationType type_;
    std::size_t tuples_ = 0, size_ = 0;  // tuples sent or expected; bytes on the wire
    std::vector<std::int64_t> header_;   // count, then the key values of every tuple
    std::vector<Tile> tiles_;            // received tiles
    MessageSegments in_place_;           // the layout MPI moves directly (in place only)
    MessageBuffer staging_;              // what MPI moves (staged only)
};

// Makes every message of an exchange ready to post: when any of them is staged, first waits once
// (DeviceMemory::synchronize) for every copy and fill that preparing them started. Call after
// every message is prepared and before the first is posted.
void make_ready(std::vector<ProtocolMessage>& incoming, std::vector<ProtocolMessage>& outgoing);

}  // namespace tra::runtime
