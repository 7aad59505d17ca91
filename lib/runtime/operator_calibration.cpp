#include "runtime/operator_calibration.hpp"

#include <algorithm>
#include <vector>

#include "runtime/polite_barrier.hpp"
#include "runtime/rank_agreement.hpp"
#include "runtime/run_watchdog.hpp"

namespace tra::runtime {

double operator_seconds(MPI_Comm comm, const OperatorCalibrationSettings& settings) {
    // As Execution runs an operator under the default limits (--operator-timeout-factor 20,
    // --operator-timeout-floor 60): the watchdog is on, and each operator sets its place.
    RunWatchdog watchdog(comm, MPI_Wtime(), 0, true);
    RankAgreement agree(comm);
    agree.watch(&watchdog);
    const PlaceLimit limit = operator_limit(20, 60, 1e-6);
    const auto one_operator = [&] {
        watchdog.set_place("operator calibration", limit);
        agree.step([] {});
    };
    one_operator();  // warm: the first collectives set up their connections
    std::vector<double> per_operator;
    for (int b = 0; b < settings.batches; ++b) {
        polite_barrier(comm);  // every rank starts the batch together
        const double start = MPI_Wtime();
        for (int i = 0; i < settings.per_batch; ++i) one_operator();
        per_operator.push_back((MPI_Wtime() - start) / std::max(1, settings.per_batch));
    }
    // The fastest batch, not the median: batch figures are bimodal where unbound ranks fill the
    // cores (a development VM's 2 ranks on 2 cores: 1.2-1.3 us, or 23 us for every operator of
    // a batch, as if the two ranks took turns on one core, each wait yielding it to the other), and
    // which mode a median of a few batches lands in was chance. A run's operators cost the fast
    // mode's figure (2-4 us all told for tiny maps in such a loop), so that is the one kept.
    double fastest = 0;
    if (!per_operator.empty())
        fastest = *std::min_element(per_operator.begin(), per_operator.end());
    MPI_Allreduce(MPI_IN_PLACE, &fastest, 1, MPI_DOUBLE, MPI_MAX, comm);
    return fastest;
}

}  // namespace tra::runtime
