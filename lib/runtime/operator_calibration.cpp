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
    double median = 0;
    if (!per_operator.empty()) {
        const auto mid =
            per_operator.begin() + static_cast<std::ptrdiff_t>(per_operator.size() / 2);
        std::nth_element(per_operator.begin(), mid, per_operator.end());
        median = *mid;
    }
    MPI_Allreduce(MPI_IN_PLACE, &median, 1, MPI_DOUBLE, MPI_MAX, comm);
    return median;
}

}  // namespace tra::runtime
