// The report of a run (Execution::reduce_over_ranks): every rank's operator runs reduced onto
// rank 0, seconds gathered (max, min, median and the slowest rank), peaks by max, measured bytes
// by sum, and whether any rank's received bytes differed from its prediction; the reservation by
// max.
#include <algorithm>

#include "runtime/execution.hpp"

namespace tra::runtime {

namespace {

// Fills the seconds fields of `run` from every rank's seconds for it (rank order).
void spread_over_ranks(std::vector<double> by_rank, OperatorRun& run) {
    const auto slowest = std::max_element(by_rank.begin(), by_rank.end());  // the first: lowest
    run.seconds = *slowest;
    run.slowest_rank = static_cast<int>(slowest - by_rank.begin());
    std::sort(by_rank.begin(), by_rank.end());
    const std::size_t n = by_rank.size(), mid = n / 2;
    run.seconds_min = by_rank.front();
    run.seconds_median = n % 2 ? by_rank[mid] : (by_rank[mid - 1] + by_rank[mid]) / 2;
}

}  // namespace

ExecutionResult Execution::reduce_over_ranks() {
    // The plan's operators, then the carry's moves, `checkpoint`, `write` (executor.hpp).
    std::vector<OperatorRun> runs = std::move(runs_);
    for (auto* more : {&carry_runs_, &checkpoint_run_, &write_run_})
        for (OperatorRun& r : *more) runs.push_back(std::move(r));
    ExecutionResult result;
    const std::size_t k = runs.size();
    // Every rank's seconds of every operator: k per rank, which is small next to any tile.
    std::vector<double> seconds(k),
        seconds_all(me_ == 0 ? k * static_cast<std::size_t>(sites_) : 0);
    std::vector<std::int64_t> sums(2 * k), sums_all(2 * k), peaks(k), peaks_max(k);
    std::vector<int> mismatch(k), mismatch_any(k);
    for (std::size_t i = 0; i < k; ++i) {
        seconds[i] = runs[i].seconds;
        sums[2 * i] = runs[i].measured_payload;
        sums[2 * i + 1] = runs[i].measured_overhead;
        peaks[i] = runs[i].peak_bytes;
        mismatch[i] = runs[i].rank_mismatches.empty() ? 0 : 1;
        runs[i].seconds_min = runs[i].seconds_median = runs[i].seconds;
        runs[i].slowest_rank = me_;
    }
    MPI_Gather(seconds.data(), static_cast<int>(k), MPI_DOUBLE, seconds_all.data(),
               static_cast<int>(k), MPI_DOUBLE, 0, comm_);
    MPI_Reduce(sums.data(), sums_all.data(), static_cast<int>(2 * k), MPI_INT64_T, MPI_SUM, 0,
               comm_);
    MPI_Reduce(peaks.data(), peaks_max.data(), static_cast<int>(k), MPI_INT64_T, MPI_MAX, 0, comm_);
    MPI_Reduce(mismatch.data(), mismatch_any.data(), static_cast<int>(k), MPI_INT, MPI_MAX, 0,
               comm_);
    if (me_ == 0) {
        std::vector<double> by_rank(static_cast<std::size_t>(sites_));
        for (std::size_t i = 0; i < k; ++i) {
            for (std::size_t r = 0; r < by_rank.size(); ++r) by_rank[r] = seconds_all[r * k + i];
            spread_over_ranks(by_rank, runs[i]);
            runs[i].measured_payload = sums_all[2 * i];
            runs[i].measured_overhead = sums_all[2 * i + 1];
            runs[i].peak_bytes = peaks_max[i];
            if (mismatch_any[i] && runs[i].rank_mismatches.empty())
                runs[i].rank_mismatches.push_back(
                    "another rank's received bytes differ from its per-site prediction");
            result.peak_bytes = std::max(result.peak_bytes, runs[i].peak_bytes);
        }
    }
    const double reserve_local[2] = {reserve_seconds_, static_cast<double>(reserved_)};
    double reserve_max[2] = {0, 0};
    MPI_Reduce(reserve_local, reserve_max, 2, MPI_DOUBLE, MPI_MAX, 0, comm_);
    result.reserve_seconds = me_ == 0 ? reserve_max[0] : reserve_seconds_;
    result.reserved_bytes = me_ == 0 ? static_cast<std::int64_t>(reserve_max[1]) : reserved_;
    result.operators = std::move(runs);
    result.iterations = reduce_iterations();
    result.iterations_run = last_iteration_ - first_iteration_ + 1;
    return result;
}

std::vector<IterationRun> Execution::reduce_iterations() {
    std::vector<IterationRun> out = iterations_;
    const std::size_t n = out.size();  // the same on every rank
    if (n == 0) return out;
    std::vector<double> seconds(n), seconds_max(n);
    std::vector<std::int64_t> bytes(2 * n), bytes_sum(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
        seconds[i] = out[i].seconds;
        bytes[2 * i] = out[i].measured_payload;
        bytes[2 * i + 1] = out[i].measured_overhead;
    }
    MPI_Reduce(seconds.data(), seconds_max.data(), static_cast<int>(n), MPI_DOUBLE, MPI_MAX, 0,
               comm_);
    MPI_Reduce(bytes.data(), bytes_sum.data(), static_cast<int>(2 * n), MPI_INT64_T, MPI_SUM, 0,
               comm_);
    if (me_ == 0)
        for (std::size_t i = 0; i < n; ++i) {
            out[i].seconds = seconds_max[i];
            out[i].measured_payload = bytes_sum[2 * i];
            out[i].measured_overhead = bytes_sum[2 * i + 1];
        }
    return out;
}

}  // namespace tra::runtime
