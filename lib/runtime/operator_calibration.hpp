#pragma once
// The runtime's fixed cost of one operator, for `tra calibrate` (docs/machine-profile.md,
// `operator_seconds`): what every operator of a run pays whatever it computes -- the watchdog
// learning the operator's place and limit, and the agreement of every rank that ends it
// (RankAgreement::step, waiting through the run watchdog that per-operator limits switch on by
// default). A loop of tiny tiles is mostly this: 5-7 us per operator on 2 ranks of the
// development machine, against microseconds of kernels.
#include <mpi.h>

namespace tra::runtime {

struct OperatorCalibrationSettings {
    int batches = 0;    // timed batches; the figure is their median
    int per_batch = 0;  // empty operators per batch
    static OperatorCalibrationSettings full() { return {11, 200}; }
    static OperatorCalibrationSettings quick() { return {5, 50}; }
};

// Collective over `comm`: every rank runs the same empty operators, as a run's ranks do, and
// every rank returns the slowest rank's median seconds per operator.
double operator_seconds(MPI_Comm comm, const OperatorCalibrationSettings& settings);

}  // namespace tra::runtime
