#include "runtime/link_calibration.hpp"

#include <algorithm>
#include <array>

#include "runtime/polite_barrier.hpp"

namespace tra::runtime {

namespace {

constexpr int kPingTag = 7101;  // nothing else is in flight while calibrating
constexpr int kDuplexTag = 7102;

double median(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
}

// Both ranks of the pair run the same loops (the counts are fixed, so they never need to agree
// on them); rank `a` times each batch. Returns, on `a`, the median one-way seconds of a message
// of `bytes`; on `b`, 0.
double one_way_seconds(MPI_Comm comm, int me, int a, int b, std::vector<char>& buffer,
                       std::int64_t bytes, int batches, int round_trips) {
    const int count = static_cast<int>(bytes);
    const int peer = me == a ? b : a;
    auto round_trip = [&] {
        if (me == a) {
            MPI_Send(buffer.data(), count, MPI_BYTE, peer, kPingTag, comm);
            MPI_Recv(buffer.data(), count, MPI_BYTE, peer, kPingTag, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buffer.data(), count, MPI_BYTE, peer, kPingTag, comm, MPI_STATUS_IGNORE);
            MPI_Send(buffer.data(), count, MPI_BYTE, peer, kPingTag, comm);
        }
    };
    round_trip();  // warm-up: connection set up, buffers registered, pages touched
    std::vector<double> samples;
    for (int i = 0; i < batches; ++i) {
        const double start = MPI_Wtime();
        for (int j = 0; j < round_trips; ++j) round_trip();
        samples.push_back((MPI_Wtime() - start) / (2.0 * round_trips));
    }
    return me == a ? median(samples) : 0;
}

// Both ranks of the pair send `bytes` to each other at once, one message each way posted as an
// exchange posts them (receive, send, wait for both), `batches` times `exchanges`; each exchange
// starts and ends with the pair in step (a zero-byte exchange), as an exchange operator starts
// and ends with every rank's agreement. Returns, on `a`, the median seconds of one exchange;
// on `b`, 0.
double duplex_seconds(MPI_Comm comm, int me, int a, int b, std::vector<char>& out,
                      std::vector<char>& in, std::int64_t bytes, int batches, int exchanges) {
    const int count = static_cast<int>(bytes);
    const int peer = me == a ? b : a;
    auto in_step = [&] {
        MPI_Sendrecv(nullptr, 0, MPI_BYTE, peer, kDuplexTag, nullptr, 0, MPI_BYTE, peer, kDuplexTag,
                     comm, MPI_STATUS_IGNORE);
    };
    auto exchange = [&] {
        in_step();
        MPI_Request requests[2];
        MPI_Irecv(in.data(), count, MPI_BYTE, peer, kDuplexTag, comm, &requests[0]);
        MPI_Isend(out.data(), count, MPI_BYTE, peer, kDuplexTag, comm, &requests[1]);
        MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
        in_step();
    };
    exchange();  // warm-up
    std::vector<double> samples;
    for (int i = 0; i < batches; ++i) {
        const double start = MPI_Wtime();
        for (int j = 0; j < exchanges; ++j) exchange();
        samples.push_back((MPI_Wtime() - start) / exchanges);
    }
    return me == a ? median(samples) : 0;
}

// Inverse slope of the least-squares line through (bytes, seconds); where the points give no
// positive slope (noise on one size), the largest message's bytes over its time above latency.
double fitted_bandwidth(const std::vector<std::int64_t>& bytes, const std::vector<double>& secs,
                        double latency) {
    const auto n = static_cast<double>(bytes.size());
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        const auto x = static_cast<double>(bytes[i]);
        sx += x, sy += secs[i], sxx += x * x, sxy += x * secs[i];
    }
    const double denominator = n * sxx - sx * sx;
    if (bytes.size() >= 2 && denominator > 0) {
        const double slope = (n * sxy - sx * sy) / denominator;
        if (slope > 0) return 1 / slope;
    }
    const auto largest = static_cast<double>(bytes.back());
    const double above = secs.back() - latency;
    return largest / (above > 0 ? above : secs.back());
}

}  // namespace

LinkCalibrationSettings LinkCalibrationSettings::full() {
    return {8, 11, 200, {4 << 20, 16 << 20, 64 << 20}, 5, 64 << 20};
}

LinkCalibrationSettings LinkCalibrationSettings::quick() {
    return {8, 5, 50, {1 << 20, 4 << 20}, 5, 8 << 20};
}

std::optional<std::pair<int, int>> same_host_pair(const HostLayout& layout) {
    for (const Host& h : layout.hosts)
        if (h.ranks.size() >= 2) return std::pair{h.ranks[0], h.ranks[1]};
    return std::nullopt;
}

std::optional<std::pair<int, int>> across_hosts_pair(const HostLayout& layout) {
    if (layout.hosts.size() < 2) return std::nullopt;
    return std::pair{layout.hosts[0].ranks.front(), layout.hosts[1].ranks.front()};
}

ia::LinkRates measure_link(MPI_Comm comm, int a, int b, const LinkCalibrationSettings& s) {
    int me = 0;
    MPI_Comm_rank(comm, &me);
    std::array<double, 3> result{0, 0, 0};  // latency, bandwidth, duplex; filled on `a`
    if (me == a || me == b) {
        const std::int64_t largest = std::max(s.small_bytes, s.large_bytes.back());
        // Every page mapped before timing.
        std::vector<char> buffer(static_cast<std::size_t>(largest), 1), other = buffer;
        const double latency = one_way_seconds(comm, me, a, b, buffer, s.small_bytes,
                                               s.small_batches, s.small_round_trips);
        std::vector<double> one_way, duplex;
        for (const std::int64_t bytes : s.large_bytes) {
            const int trips =
                static_cast<int>(std::max<std::int64_t>(1, s.large_batch_bytes / bytes));
            one_way.push_back(
                one_way_seconds(comm, me, a, b, buffer, bytes, s.large_batches, trips));
            duplex.push_back(
                duplex_seconds(comm, me, a, b, buffer, other, bytes, s.large_batches, trips));
        }
        if (me == a)
            result = {latency, fitted_bandwidth(s.large_bytes, one_way, latency),
                      fitted_bandwidth(s.large_bytes, duplex, latency)};
    }
    polite_barrier(comm);  // the others sleep: spinning, they would take the pair's cores
    MPI_Bcast(result.data(), 3, MPI_DOUBLE, a, comm);
    return {true, result[0], result[1], result[2]};
}

}  // namespace tra::runtime
