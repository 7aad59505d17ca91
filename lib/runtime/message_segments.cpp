#include "runtime/message_segments.hpp"

#include <algorithm>

namespace tra::runtime {

void MessageSegments::add(const void* at, std::size_t bytes, Residence where) {
    if (bytes == 0) return;
    segments_.push_back({static_cast<const char*>(at), bytes, where});
    size_ += bytes;
}

bool MessageSegments::on_host() const {
    return std::all_of(segments_.begin(), segments_.end(),
                       [](const Segment& s) { return s.where == Residence::Host; });
}

void MessageSegments::pack(MessageBuffer& buffer) const {
    std::size_t at = 0;
    for (const Segment& s : segments_) {
        buffer.write(at, s.at, s.bytes, s.where);
        at += s.bytes;
    }
}

void MessageSegments::unpack(const MessageBuffer& buffer) const {
    std::size_t at = 0;
    for (const Segment& s : segments_) {
        // A received message is described over memory this rank owns and writes (add), as
        // MPI_Irecv at MPI_BOTTOM writes it in post.
        buffer.read(at, const_cast<char*>(s.at), s.bytes, s.where);
        at += s.bytes;
    }
}

void MessageSegments::post(std::size_t limit, bool receive, int peer, int tag, MPI_Comm comm,
                           std::vector<MPI_Request>& requests) const {
    std::size_t segment = 0, offset = 0;  // where the next piece starts
    for (std::size_t at = 0; at < size_; at += limit) {
        const std::size_t piece = std::min(limit, size_ - at);
        std::vector<int> lengths;
        std::vector<MPI_Aint> addresses;
        for (std::size_t left = piece; left > 0;) {
            const Segment& s = segments_[segment];
            const std::size_t n = std::min(left, s.bytes - offset);
            MPI_Aint address = 0;
            MPI_Get_address(s.at + offset, &address);
            addresses.push_back(address);
            lengths.push_back(static_cast<int>(n));
            left -= n;
            offset += n;
            if (offset == s.bytes) ++segment, offset = 0;
        }
        MPI_Datatype type;
        MPI_Type_create_hindexed(static_cast<int>(lengths.size()), lengths.data(), addresses.data(),
                                 MPI_BYTE, &type);
        MPI_Type_commit(&type);
        requests.emplace_back();
        // MPI_BOTTOM: the datatype holds absolute addresses. Freeing a datatype right after
        // posting is allowed; pending operations keep it alive.
        if (receive)
            MPI_Irecv(MPI_BOTTOM, 1, type, peer, tag, comm, &requests.back());
        else
            MPI_Isend(MPI_BOTTOM, 1, type, peer, tag, comm, &requests.back());
        MPI_Type_free(&type);
    }
}

}  // namespace tra::runtime
