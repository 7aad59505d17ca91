#pragma once
// The runtime's own cost of an operator, for `tra calibrate` (docs/machine-profile.md,
// `operator_seconds` and `kernel_call_seconds`): what every operator of a run pays whatever it
// computes -- the watchdog learning its place and limit, the agreement of every rank that ends
// it, the operator's report and memory account -- and what each tile it makes adds beside the
// kernel's arithmetic (finding the matching tuples, the tile's allocation, the kernel's
// dispatch). Measured as a run pays them: a loop of element-wise joins of 4 x 4 tiles run by
// runtime::execute, once with one tile per rank and once with eight (and both again with the
// einsum kernel an `einsum:` step calls in place of `add`). On the development VM:
// 0.2 us per operator and 0.3 us per tile on one rank, 1.4 us and 0.4 us on two; a loop of tiny
// tiles spends most of its time here. An exchange operator (an enforcer, a loop's carry) costs
// more whatever it moves: the ranks agree on its lists before any message is posted, it sets up
// its messages and waits for them, and it keeps what stays; measured on the same loop's carry,
// which moves nothing.
#include <mpi.h>

#include <vector>

#include "ia/machine_profile.hpp"

namespace tra::runtime {

struct OperatorCalibrationSettings {
    int joins = 0;       // operators per iteration (a chain of joins)
    int iterations = 0;  // of the loop
    int repeats = 0;     // runs of the loop per tile count; the fastest counts
    static OperatorCalibrationSettings full() { return {40, 50, 5}; }
    static OperatorCalibrationSettings quick() { return {20, 10, 3}; }
};

struct OperatorCosts {
    double operator_seconds = 0;     // per operator, whatever it holds
    double tile_seconds = 0;         // per tile its busiest rank makes, beside the kernel's work
    double einsum_tile_seconds = 0;  // the same where each tile is an einsum kernel's call
    double exchange_seconds = 0;     // per exchange operator beside its messages (0: none measured)
};

// Collective over `comm`: every rank runs the same loops, as a run's ranks do, and returns the
// same costs (the report's, whose operator seconds are the slowest rank's).
OperatorCosts operator_costs(MPI_Comm comm, const OperatorCalibrationSettings& settings);

// The runtime's own cost per message of an exchange beyond what `profile` prices (its links'
// latency per message and bandwidth, its exchange_seconds): laying a message out, posting it,
// waiting for it and checking what arrived. Measured on the loop of joins with 1 tile per rank
// whose carry is X <- xM, which sends every rank's tile of xM to every other rank: the carry's
// seconds (the fastest run's) less the profile's prediction for it without this cost, over the
// messages of the rank that sends and receives most. `host_of_rank`: each rank's host (the time
// model's host_of_site). 0 on one rank, and where the carry took no longer than predicted.
// Collective.
double message_seconds(MPI_Comm comm, const ia::MachineProfile& profile,
                       const std::vector<int>& host_of_rank,
                       const OperatorCalibrationSettings& settings);

}  // namespace tra::runtime
