// The ordering rule of staged exchanges (runtime/protocol_message.hpp) against real MPI posts,
// under mpiexec -n 1..4: this binary wraps MPI_Isend and MPI_Irecv (the MPI profiling interface:
// its definitions take the place of the library's, which stay reachable as PMPI_*) to log each
// post into the host-backed device stand-in's events, so a test sees, in one list, the packing
// copies, buffer allocations, the synchronize and the posts of an exchange. Pinned and device
// message buffers both, kept in a message pool across exchanges as a GPU run keeps them.
#include <mpi.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "../unit/host_device_fixtures.hpp"
#include "core/tile.hpp"
#include "runtime/exchange.hpp"

namespace {
tra::testing::HostBackedDeviceMemory* recording = nullptr;  // whose events log the posts
}  // namespace

extern "C" int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm, MPI_Request* request) {
    if (recording) recording->events.push_back("post");
    return PMPI_Isend(buf, count, type, dest, tag, comm, request);
}

extern "C" int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag,
                         MPI_Comm comm, MPI_Request* request) {
    if (recording) recording->events.push_back("post");
    return PMPI_Irecv(buf, count, type, source, tag, comm, request);
}

namespace {

using namespace tra;
using runtime::ExchangeMemory;
using runtime::MessageBuffer;
using runtime::MessagePool;

const RelationType kType{1, Shape{4, 4}, DType::F32};  // 8-byte keys, 64-byte tiles

long count_of(const std::vector<std::string>& events, const std::string& event) {
    return static_cast<long>(std::count(events.begin(), events.end(), event));
}

// Every rank sends two device tiles to every other rank, tile i to d holding me * 100 + d * 10 +
// i everywhere; checks what arrived and returns the stand-in's events of the exchange.
std::vector<std::string> exchange_once(testing::HostBackedDeviceMemory& device,
                                       const ExchangeMemory& memory, int me, int size) {
    const auto n = static_cast<std::size_t>(size);
    std::vector<std::vector<Key>> keys(n), expect(n);
    std::vector<std::vector<Tile>> tiles(n);
    std::vector<std::vector<runtime::OutgoingTuple>> send(n);
    for (int d = 0; d < size; ++d) {
        if (d == me) continue;
        const auto du = static_cast<std::size_t>(d);
        for (int i = 0; i < 2; ++i) {
            keys[du].push_back(Key{i});
            Tile t(DType::F32, Shape{4, 4});
            for (std::int64_t e = 0; e < t.elements(); ++e) t.set(e, me * 100 + d * 10 + i);
            tiles[du].push_back(t.to(Residence::Device));
            expect[du].push_back(Key{i});
        }
        for (int i = 0; i < 2; ++i)
            send[du].emplace_back(&keys[du][static_cast<std::size_t>(i)],
                                  &tiles[du][static_cast<std::size_t>(i)]);
    }
    device.events.clear();
    recording = &device;
    std::vector<std::string> events;
    runtime::exchange(
        MPI_COMM_WORLD, 11, kType, send, expect,
        [&](int source, Key k, Tile t) {
            if (events.empty()) events = device.events;  // up to the first delivery
            CHECK(t.on_device());
            const Tile host = t.to(Residence::Host);
            for (std::int64_t e = 0; e < host.elements(); ++e)
                CHECK(host.get(e) == source * 100 + me * 10 + k[0]);
        },
        memory);
    recording = nullptr;
    return events;
}

}  // namespace

TEST_CASE("a staged exchange posts nothing before a synchronize that follows every copy") {
    int me = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) return;  // no peer, no message
    testing::InstalledHostDevice device;
    for (const auto kind : {MessageBuffer::Kind::Pinned, MessageBuffer::Kind::Device}) {
        MessagePool pool;
        const ExchangeMemory memory{Residence::Device, kind, &pool};
        for (int round = 0; round < 2; ++round) {
            CAPTURE(kind == MessageBuffer::Kind::Device, round, me, size);
            const auto events = exchange_once(device.memory, memory, me, size);
            const auto first_post = std::find(events.begin(), events.end(), "post");
            REQUIRE(first_post != events.end());
            // The last event before the first post is the synchronize, and no copy or
            // allocation comes between the synchronize and the last post.
            const std::vector<std::string> before(events.begin(), first_post);
            REQUIRE_FALSE(before.empty());
            CHECK(before.back() == "synchronize");
            CHECK(count_of(before, "copy") >= 2 * (size - 1));  // every tile was packed
            const auto last_post = std::find(events.rbegin(), events.rend(), "post").base();
            for (auto it = first_post; it != last_post; ++it) CHECK(*it == "post");
            CHECK(count_of(events, "post") == 2 * (size - 1));  // a send and a receive per peer
            // The pool's buffers are made in the first round only: one per peer and direction.
            const long made =
                count_of(before, "allocate_message") + count_of(before, "allocate_pinned");
            CHECK(made == (round == 0 ? 2 * (size - 1) : 0));
        }
        CHECK(pool.buffers() == static_cast<std::size_t>(2 * (size - 1)));
        pool.release();
        CHECK(device.memory.messages.empty());
        CHECK(device.memory.pinned.empty());
    }
}
