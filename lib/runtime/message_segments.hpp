#pragma once
// One protocol message described in place: the memory ranges it consists of, in order (a count
// header, key arrays, tile buffers), instead of a buffer it was packed into. On host memory MPI
// sends from and receives into them directly through derived datatypes, so a tile crosses
// memory once (into and out of MPI's own transport) rather than also being packed and unpacked.
// Where messages are staged (protocol_message.hpp) the same description packs and unpacks the
// staging buffer. The bytes on the wire are the same either way, piece limits included.
#include <mpi.h>

#include <cstddef>
#include <vector>

#include "core/device_memory.hpp"
#include "runtime/message_buffer.hpp"

namespace tra::runtime {

class MessageSegments {
  public:
    // Appends `bytes` bytes at `at`, in memory `where`, to the message (memory that outlives
    // the transfer, and that this rank may write when the message is received).
    void add(const void* at, std::size_t bytes, Residence where = Residence::Host);
    std::size_t size() const { return size_; }
    bool on_host() const;  // every segment in host memory

    // Posts the message as consecutive pieces of at most `limit` bytes (limit <= INT_MAX), like
    // a packed message of size() bytes cut at the same offsets: a receive when `receive`, a
    // send otherwise. Appends one request per piece. Host segments only.
    void post(std::size_t limit, bool receive, int peer, int tag, MPI_Comm comm,
              std::vector<MPI_Request>& requests) const;

    // Copies the segments, in order, into `buffer` (size() bytes), and back out of it.
    void pack(MessageBuffer& buffer) const;
    void unpack(const MessageBuffer& buffer) const;

  private:
    struct Segment {
        const char* at;
        std::size_t bytes;
        Residence where;
    };
    std::vector<Segment> segments_;
    std::size_t size_ = 0;
};

}  // namespace tra::runtime
