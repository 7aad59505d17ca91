#pragma once
// One protocol message described in place: the memory ranges it consists of, in order (a count
// header, key arrays, tile buffers), instead of a buffer it was packed into. MPI sends from and
// receives into them directly through derived datatypes, so a tile crosses memory once (into
// and out of MPI's own transport) rather than also being packed and unpacked. The bytes on the
// wire are the same as for the packed message, piece limits included.
#include <mpi.h>

#include <cstddef>
#include <vector>

namespace tra::runtime {

class MessageSegments {
  public:
    // Appends `bytes` bytes at `at` to the message (host memory that outlives the transfer).
    void add(const void* at, std::size_t bytes);
    std::size_t size() const { return size_; }

    // Posts the message as consecutive pieces of at most `limit` bytes (limit <= INT_MAX), like
    // a packed message of size() bytes cut at the same offsets: a receive when `receive`, a
    // send otherwise. Appends one request per piece.
    void post(std::size_t limit, bool receive, int peer, int tag, MPI_Comm comm,
              std::vector<MPI_Request>& requests) const;

  private:
    struct Segment {
        const char* at;
        std::size_t bytes;
    };
    std::vector<Segment> segments_;
    std::size_t size_ = 0;
};

}  // namespace tra::runtime
