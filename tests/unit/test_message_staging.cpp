// Staged exchange messages without MPI or a GPU (host-backed stand-in for device memory): the
// ordering rule of runtime/protocol_message.hpp (nothing is posted before one synchronize that
// follows every packing copy and buffer allocation), and the run's grow-only message pool
// (runtime/message_pool.hpp). tests/mpi/test_exchange_order.cpp checks the same order against
// real MPI posts.
#include <mpi.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/tile.hpp"
#include "host_device_fixtures.hpp"
#include "runtime/protocol_message.hpp"

using namespace tra;
using runtime::ExchangeMemory;
using runtime::MessageBuffer;
using runtime::MessagePool;
using runtime::ProtocolMessage;

namespace {

const RelationType kType{1, Shape{2, 2}, DType::F64};  // 8-byte keys, 32-byte tiles

// Position of the last `event` in `events`, or -1 when it is not there.
long last_of(const std::vector<std::string>& events, const std::string& event) {
    const auto it = std::find(events.rbegin(), events.rend(), event);
    return it == events.rend() ? -1 : static_cast<long>(events.rend() - it) - 1;
}

// Two outgoing device tiles to peer 1 and one incoming message from peer 1, prepared on
// `memory`, then made ready; returns the stand-in's events from the first preparation on.
std::vector<std::string> prepare_and_make_ready(testing::HostBackedDeviceMemory& device,
                                                const ExchangeMemory& memory) {
    const Key k0{0}, k1{1};
    const Tile t0 = Tile(DType::F64, Shape{2, 2}).to(Residence::Device);
    const Tile t1 = Tile(DType::F64, Shape{2, 2}).to(Residence::Device);
    const std::vector<runtime::OutgoingTuple> tuples{{&k0, &t0}, {&k1, &t1}};
    device.events.clear();
    std::vector<ProtocolMessage> incoming(2), outgoing(2);
    outgoing[1] = ProtocolMessage::outgoing(tuples, kType, memory, 1);
    incoming[1] = ProtocolMessage::incoming(3, kType, memory, 1);
    CHECK_FALSE(outgoing[1].ready());
    std::vector<MPI_Request> requests;
    // Refused before MPI is called at all (this test never initialises MPI).
    CHECK_THROWS_WITH(outgoing[1].post(1024, 1, 0, MPI_COMM_WORLD, requests),
                      Catch::Contains("posted before make_ready"));
    CHECK(requests.empty());
    runtime::make_ready(incoming, outgoing);
    CHECK(outgoing[1].ready());
    CHECK(incoming[1].ready());
    return device.events;
}

}  // namespace

TEST_CASE("staged messages are ready only after a synchronize that follows every copy",
          "[exchange][staging]") {
    testing::InstalledHostDevice gpu;
    MessagePool pool;
    for (const auto kind : {MessageBuffer::Kind::Pinned, MessageBuffer::Kind::Device})
        for (MessagePool* p : {static_cast<MessagePool*>(nullptr), &pool}) {
            CAPTURE(kind == MessageBuffer::Kind::Device, p != nullptr);
            const ExchangeMemory memory{Residence::Device, kind, p};
            const auto events = prepare_and_make_ready(gpu.memory, memory);
            const long sync = last_of(events, "synchronize");
            REQUIRE(sync >= 0);
            CHECK(std::count(events.begin(), events.end(), "synchronize") == 1);
            CHECK(sync == static_cast<long>(events.size()) - 1);  // nothing after it
            CHECK(last_of(events, "copy") >= 0);                  // packing did copy
            CHECK(last_of(events, "copy") < sync);
            CHECK(last_of(events, "allocate_message") < sync);
            CHECK(last_of(events, "allocate_pinned") < sync);
        }
}

TEST_CASE("messages in place need no synchronize to be ready", "[exchange][staging]") {
    testing::InstalledHostDevice gpu;
    const Key k{0};
    const Tile t(DType::F64, Shape{2, 2});
    std::vector<ProtocolMessage> incoming(2), outgoing(2);
    outgoing[1] = ProtocolMessage::outgoing({{&k, &t}}, kType, {}, 1);
    incoming[1] = ProtocolMessage::incoming(1, kType, {}, 1);
    gpu.memory.events.clear();
    runtime::make_ready(incoming, outgoing);
    CHECK(gpu.memory.events.empty());
    CHECK(outgoing[1].ready());
}

TEST_CASE("device message buffers are plain and unfilled, not tile allocations",
          "[exchange][staging]") {
    testing::InstalledHostDevice gpu;
    {
        MessageBuffer buffer(64, MessageBuffer::Kind::Device);
        CHECK(gpu.memory.messages.size() == 1);
        CHECK(gpu.memory.live.empty());
        CHECK(gpu.memory.events == std::vector<std::string>{"allocate_message"});
    }
    CHECK(gpu.memory.messages.empty());
}

TEST_CASE("the message pool keeps one grow-only buffer per peer, direction and kind",
          "[exchange][staging]") {
    testing::InstalledHostDevice gpu;
    using Direction = MessagePool::Direction;
    constexpr auto kDevice = MessageBuffer::Kind::Device;
    constexpr auto kPinned = MessageBuffer::Kind::Pinned;
    MessagePool pool;
    void* first = nullptr;
    {
        MessageBuffer a = pool.lease(1, Direction::Send, kDevice, 100);
        CHECK(a.size() == 100);
        first = a.data();
    }  // a view: its end frees nothing
    CHECK(gpu.memory.messages.size() == 1);
    {
        MessageBuffer smaller = pool.lease(1, Direction::Send, kDevice, 40);
        CHECK(smaller.data() == first);  // reused, not reallocated
        CHECK(smaller.size() == 40);
    }
    CHECK(std::count(gpu.memory.events.begin(), gpu.memory.events.end(), "allocate_message") == 1);
    // Another peer, the other direction and another kind each have a buffer of their own.
    MessageBuffer peer2 = pool.lease(2, Direction::Send, kDevice, 10);
    MessageBuffer receive = pool.lease(1, Direction::Receive, kDevice, 10);
    MessageBuffer pinned = pool.lease(1, Direction::Send, kPinned, 10);
    CHECK(pool.buffers() == 4);
    CHECK(gpu.memory.messages.size() == 3);
    CHECK(gpu.memory.pinned.size() == 1);
    CHECK(pool.held_bytes() == 100 + 10 + 10 + 10);
    // Growing replaces the buffer: the old one is freed before the larger one is made.
    MessageBuffer larger = pool.lease(1, Direction::Send, kDevice, 1000);
    CHECK(larger.size() == 1000);
    CHECK(gpu.memory.messages.size() == 3);
    CHECK(last_of(gpu.memory.events, "release_message") <
          last_of(gpu.memory.events, "allocate_message"));
    CHECK(pool.held_bytes() == 1000 + 10 + 10 + 10);
    pool.release();
    CHECK(gpu.memory.messages.empty());
    CHECK(gpu.memory.pinned.empty());
    CHECK(pool.held_bytes() == 0);
}

TEST_CASE("a view larger than its buffer is refused", "[exchange][staging]") {
    MessageBuffer storage(16, MessageBuffer::Kind::Host);
    CHECK_THROWS_WITH(MessageBuffer::view(storage, 17), Catch::Contains("does not fit"));
    CHECK(MessageBuffer::view(storage, 16).data() == storage.data());
}
