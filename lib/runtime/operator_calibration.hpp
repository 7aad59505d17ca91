#pragma once
// The runtime's fixed cost of one operator, for `tra calibrate` (docs/machine-profile.md,
// `operator_seconds`): what every operator of a run pays whatever it computes -- the watchdog
// learning the operator's place and limit, and the agreement of every rank that ends it
// (RankAgreement::step, waiting through the run watchdog that per-operator limits switch on by
// default). About 1.2 us per operator on 2 ranks of the development VM, 0.1 us on one: what a
// loop of tiny tiles spends beside its kernels is this and the runtime's work per tile.
#include <mpi.h>

namespace tra::runtime {

struct OperatorCalibrationSettings {
    int batches = 0;    // timed batches; the figure is the fastest one's (operator_calibration.cpp)
    int per_batch = 0;  // empty operators per batch
    static OperatorCalibrationSettings full() { return {11, 200}; }
    static OperatorCalibrationSettings quick() { return {5, 50}; }
};

// Collective over `comm`: every rank runs the same empty operators, as a run's ranks do, and
// every rank returns the slowest rank's seconds per operator in its fastest batch.
double operator_seconds(MPI_Comm comm, const OperatorCalibrationSettings& settings);

}  // namespace tra::runtime
