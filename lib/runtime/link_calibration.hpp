#pragma once
// Measures point-to-point links between two ranks by ping-pong, for `tra calibrate`
// (docs/machine-profile.md): latency from small messages, bandwidth from large ones, fitted to
// the time model's  seconds = latency + bytes / bandwidth  per message on each side; and the
// duplex bandwidth from the same large messages sent both ways at once.
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "ia/machine_profile.hpp"
#include "runtime/host_layout.hpp"

namespace tra::runtime {

struct LinkCalibrationSettings {
    std::int64_t small_bytes = 8;           // latency messages
    int small_batches = 0;                  // timed batches of small round trips
    int small_round_trips = 0;              // round trips per small batch
    std::vector<std::int64_t> large_bytes;  // bandwidth messages, ascending
    int large_batches = 0;                  // timed batches per large size
    std::int64_t large_batch_bytes = 0;     // round trips per batch: this / message bytes

    // What `tra calibrate` uses: 4, 16 and 64 MiB messages.
    static LinkCalibrationSettings full();
    // `--quick`: 1 and 4 MiB messages, fewer batches.
    static LinkCalibrationSettings quick();
};

// The two ranks to measure between: the first two ranks of the first host with two or more
// (same host), and the first ranks of the first two hosts (across hosts); none when the run has
// no such pair.
std::optional<std::pair<int, int>> same_host_pair(const HostLayout& layout);
std::optional<std::pair<int, int>> across_hosts_pair(const HostLayout& layout);

// Collective over `comm`: ranks `a` and `b` ping-pong while the others sleep; every rank returns
// the measured rates (measured = true). One-way time is half a round trip; latency is the median
// over batches of small messages, bandwidth the inverse slope of a least-squares line through
// the median one-way times of the large sizes; the duplex bandwidth the same through the median
// times of an exchange of each large size both ways at once.
ia::LinkRates measure_link(MPI_Comm comm, int a, int b, const LinkCalibrationSettings& settings);

}  // namespace tra::runtime
