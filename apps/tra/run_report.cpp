#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "json_writer.hpp"
#include "run_options.hpp"
#include "run_provenance.hpp"
#include "runtime/tensor_diff.hpp"

namespace tra::cli {

namespace {

struct Totals {
    std::int64_t measured = 0, overhead = 0, predicted = 0, predicted_overhead = 0;
};

// The plan's operators only: `write` is not part of the prediction.
Totals totals_of(const runtime::ExecutionResult& result) {
    Totals t;
    for (const auto& r : result.operators) {
        if (r.op == "write") continue;
        t.measured += r.measured_payload;
        t.overhead += r.measured_overhead;
        t.predicted += r.predicted_payload;
        t.predicted_overhead += r.predicted_overhead;
    }
    return t;
}

// The time model's seconds for operator `r` over the run (`write` has none): an IA node's once
// per iteration, a carry move's once between two iterations.
double predicted(const RunSummary& run, const runtime::OperatorRun& r) {
    if (!run.predicted_seconds || r.id < 0 || r.op == "write") return 0;
    const auto i = static_cast<std::size_t>(r.id);
    const double once = i < run.predicted_seconds->size() ? (*run.predicted_seconds)[i] : 0.0;
    return once * static_cast<double>(r.op == "carry" ? run.iterations - 1 : run.iterations);
}

double predicted_total(const RunSummary& run) {
    double total = 0;
    for (const auto& r : run.result->operators) total += predicted(run, r);
    return total;
}

// One line for a loop: how many iterations, their seconds, and whether every one moved the
// bytes predicted for it.
void print_iterations(const runtime::ExecutionResult& result) {
    const auto& its = result.iterations;
    if (its.empty()) return;
    double least = its.front().seconds, most = least, sum = 0;
    std::size_t exact = 0;
    for (const auto& it : its) {
        least = std::min(least, it.seconds);
        most = std::max(most, it.seconds);
        sum += it.seconds;
        exact += it.measured_payload == it.predicted_payload &&
                 it.measured_overhead == it.predicted_overhead;
    }
    std::printf(
        "loop: iterations %lld to %lld, %.4g s each on average (%.4g to %.4g); %zu of %zu moved "
        "exactly the bytes predicted for them\n",
        static_cast<long long>(its.front().iteration), static_cast<long long>(its.back().iteration),
        sum / static_cast<double>(its.size()), least, most, exact, its.size());
}

long long ll(std::int64_t v) {
    return static_cast<long long>(v);
}

}  // namespace

std::vector<std::string> byte_mismatches(const runtime::ExecutionResult& result) {
    std::vector<std::string> problems;
    for (const auto& r : result.operators) {
        if (r.measured_payload != r.predicted_payload ||
            r.measured_overhead != r.predicted_overhead)
            problems.push_back("operator #" + std::to_string(r.id) + " " + r.op + " moved " +
                               std::to_string(r.measured_payload) + " + " +
                               std::to_string(r.measured_overhead) + " bytes, predicted " +
                               std::to_string(r.predicted_payload) + " + " +
                               std::to_string(r.predicted_overhead));
        for (const auto& m : r.rank_mismatches)
            problems.push_back("operator #" + std::to_string(r.id) + " " + r.op + ": " + m);
    }
    for (const auto& it : result.iterations)
        if (it.measured_payload != it.predicted_payload ||
            it.measured_overhead != it.predicted_overhead)
            problems.push_back("iteration " + std::to_string(it.iteration) + " moved " +
                               std::to_string(it.measured_payload) + " + " +
                               std::to_string(it.measured_overhead) + " bytes, predicted " +
                               std::to_string(it.predicted_payload) + " + " +
                               std::to_string(it.predicted_overhead));
    return problems;
}

void print_run_table(const RunSummary& run) {
    const auto& result = *run.result;
    const Totals t = totals_of(result);
    std::printf("ran plan %s of %s on %d site%s in %g s\n",
                run.plan.empty() ? "(no choices)" : run.plan.c_str(), run.program->name.c_str(),
                run.sites, run.sites == 1 ? "" : "s", run.seconds);
    if (run.device && run.device->device == runtime::Device::Gpu)
        std::printf("device: %s\n", run.device->str().c_str());
    std::printf("%4s  %-16s %10s %10s %14s %14s %12s %12s %14s\n", "id", "op", "seconds",
                "predicted", "measured", "predicted", "overhead", "predicted", "peak/rank");
    for (const auto& r : result.operators) {
        char guess[16] = "-";
        if (r.op != "write") std::snprintf(guess, sizeof guess, "%.4f", predicted(run, r));
        std::printf("%4lld  %-16s %10.4f %10s %14lld %14lld %12lld %12lld %14lld\n", ll(r.id),
                    r.op.c_str(), r.seconds, guess, ll(r.measured_payload), ll(r.predicted_payload),
                    ll(r.measured_overhead), ll(r.predicted_overhead), ll(r.peak_bytes));
    }
    std::printf(
        "total: %lld bytes payload (predicted %lld) + %lld overhead (predicted %lld); "
        "peak %lld bytes per rank (predicted %lld)\n",
        ll(t.measured), ll(t.predicted), ll(t.overhead), ll(t.predicted_overhead),
        ll(result.peak_bytes), ll(run.totals->peak_bytes));
    if (result.reserved_bytes > 0)
        std::printf(
            "reserved %lld bytes per rank for large tiles before the first operator, in "
            "%.4f s (predicted %lld bytes, %.4f s)\n",
            ll(result.reserved_bytes), result.reserve_seconds, ll(run.predicted_reserved_bytes),
            run.predicted_reserve_seconds);
    print_iterations(result);
    if (run.profile)
        std::printf("predicted %.4g s for the plan's operators by machine profile %s (%s)\n",
                    predicted_total(run), run.profile->name.c_str(), run.profile->source.c_str());
    std::fflush(stdout);
}

void write_run_report(const RunSummary& run, const std::string& path) {
    const auto& result = *run.result;
    const Totals t = totals_of(result);
    std::ofstream out(path);
    JsonWriter j(out);
    j.begin_object();
    j.field("sites", run.sites).field("plan", run.plan).field("seconds", run.seconds);
    j.field("predicted_seconds", predicted_total(run));
    if (run.profile) write_machine_json(j, *run.profile);
    const bool gpu = run.device && run.device->device == runtime::Device::Gpu;
    j.field("device", gpu ? "gpu" : "cpu");
    if (gpu)
        j.field("gpu", run.device->gpu_name)
            .field("gpu_free_bytes", run.device->free_bytes)
            .field("gpu_ranks_per_gpu", run.device->ranks_per_gpu)
            .field("gpu_memory_budget_bytes", run.device->memory_budget);
    j.key("operators").begin_array();
    for (const auto& r : result.operators) {
        j.begin_object();
        j.field("id", r.id).field("op", r.op).field("seconds", r.seconds);
        j.field("seconds_min", r.seconds_min)
            .field("seconds_median", r.seconds_median)
            .field("seconds_max", r.seconds)
            .field("slowest_rank", r.slowest_rank);
        if (r.op != "write") j.field("predicted_seconds", predicted(run, r));
        j.field("measured_bytes", r.measured_payload).field("predicted_bytes", r.predicted_payload);
        j.field("overhead_bytes", r.measured_overhead)
            .field("predicted_overhead_bytes", r.predicted_overhead);
        j.field("peak_bytes", r.peak_bytes);
        j.end_object();
    }
    j.end_array();
    if (!result.iterations.empty()) {  // a loop: each iteration, its carry included
        j.key("iterations").begin_array();
        for (const auto& it : result.iterations)
            j.begin_object()
                .field("iteration", it.iteration)
                .field("seconds", it.seconds)
                .field("measured_bytes", it.measured_payload)
                .field("predicted_bytes", it.predicted_payload)
                .field("overhead_bytes", it.measured_overhead)
                .field("predicted_overhead_bytes", it.predicted_overhead)
                .end_object();
        j.end_array();
    }
    j.field("measured_bytes", t.measured).field("predicted_bytes", t.predicted);
    j.field("overhead_bytes", t.overhead).field("predicted_overhead_bytes", t.predicted_overhead);
    j.field("peak_bytes", result.peak_bytes).field("predicted_peak_bytes", run.totals->peak_bytes);
    j.field("reserved_bytes", result.reserved_bytes)
        .field("reserve_seconds", result.reserve_seconds)
        .field("predicted_reserved_bytes", run.predicted_reserved_bytes)
        .field("predicted_reserve_seconds", run.predicted_reserve_seconds);
    if (!result.verification.empty())  // --verify
        j.key("verify")
            .begin_object()
            .field("result", result.verification)
            .field("seconds", result.verify_seconds)
            .end_object();
    if (result.trace_seconds > 0)  // --trace
        j.key("trace").begin_object().field("seconds", result.trace_seconds).end_object();
    if (run.provenance) write_provenance_json(j.key("provenance"), *run.provenance);
    j.end_object();
    out << "\n";
    if (!out) throw Error("cannot write the report " + path, {}, ErrorKind::Failed);
}

std::string compare_relations(const TensorRelation& got, const TensorRelation& want,
                              const Shape& cropped) {
    const auto tol = runtime::Tolerance::for_dtypes(got.type.dtype, want.type.dtype);
    if (got.tuples.size() != want.tuples.size())
        return std::to_string(got.tuples.size()) + " tuples, the reference has " +
               std::to_string(want.tuples.size());
    for (const auto& [k, w] : want.tuples) {
        auto it = got.tuples.find(k);
        if (it == got.tuples.end()) return "tuple " + k.str() + " is missing";
        const Tile& g = it->second;
        if (g.shape() != w.shape()) return "tuple " + k.str() + " has shape " + g.shape().str();
        // Element by element in row-major order; the padding past `cropped` is not written.
        const Shape& bound = w.shape();
        Shape local(bound.size());
        std::int64_t i = 0;
        if (w.elements() > 0) do {
                bool inside = true;
                for (std::size_t d = 0; d < cropped.size() && d < bound.size(); ++d)
                    inside = inside && k[d] * bound[d] + local[d] < cropped[d];
                const double x = g.get(i), y = w.get(i);
                if (inside && !tol.close(x, y))
                    return "tuple " + k.str() + " element " + std::to_string(i) + ": " +
                           std::to_string(x) + " vs reference " + std::to_string(y);
                ++i;
            } while (next_in_box(local, bound));
    }
    return "";
}

}  // namespace tra::cli
