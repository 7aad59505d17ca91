#pragma once
// `tra run`: its options and the pieces of the verb (docs/runtime.md). run.cpp registers the verb
// and drives a distributed run; run_reference.cpp is the single-process oracle; run_report.cpp
// prints and writes the run report.
#include <cstdint>
#include <optional>
#include <string>

#include "ia/plan_costs.hpp"
#include "plan_request.hpp"
#include "runtime/device_context.hpp"
#include "runtime/executor.hpp"
#include "tra/program.hpp"

namespace tra::cli {

struct RunOptions {
    std::string workflow;
    std::string out_dir;
    std::string plan;
    std::string report;
    std::string trace_dir;  // --trace DIR: each rank writes DIR/rank-R.json
    double timeout = 0;     // --timeout SECONDS for the whole run; 0: none
    // Per-operator limit (--operator-timeout-factor K, --operator-timeout-floor F; K 0: none):
    // K x the operator's predicted seconds + F. On by default, so it must never end a legitimate
    // run: K = 20 covers a time model off by 20x on the operators that take long (an
    // uncalibrated profile, 2 ranks per core); F = 60 s covers the operators predicted to take
    // milliseconds, whose time a slow, oversubscribed or sanitized machine (3-10x) dominates.
    double operator_timeout_factor = 20, operator_timeout_floor = 60;
    bool hash_inputs = false;  // --hash-inputs: the report's provenance hashes every input file
    std::optional<std::int64_t>
        memory_per_site;         // else the default budget (runtime/memory_limits.hpp)
    std::optional<int> threads;  // BLAS threads per rank
    std::string device = "cpu";  // --device cpu|gpu (docs/gpu.md)
    bool reference = false;
    bool force = false;
    bool progress = false;
    bool check = false;
    bool verify = false;  // --verify (runtime/output_verification.hpp)
    optimizer::CostModel cost =
        optimizer::CostModel::Time;  // which plan `--plan N` (default 1) means
    TimeFlags time;
    std::int64_t max_tuples = kDefaultMaxTuples;  // --max-tuples
    // Loops (run_resume.hpp): --checkpoint DIR, --checkpoint-every K (0: the default, about a
    // tenth of the loop), --resume DIR.
    std::string checkpoint_dir;
    std::int64_t checkpoint_every = 0;
    std::string resume_dir;
};

// Evaluates the workflow on one process with the reference evaluator and writes its outputs.
void run_reference(const RunOptions& opt);

struct Provenance;

// What rank 0 reports after a run: the table on stdout, and the JSON report when asked.
struct RunSummary {
    int sites = 1;
    std::string plan;  // the plan's name
    const Program* program = nullptr;
    double seconds = 0;
    const runtime::ExecutionResult* result = nullptr;
    const ia::PlanTotals* totals = nullptr;
    const runtime::DeviceContext* device = nullptr;
    // The time model's seconds per IA node (a fused join's on the aggregate that runs it), then
    // in a loop 0 for `write` and one per carry move, all for one iteration; and the machine
    // profile that predicted them.
    const std::vector<double>* predicted_seconds = nullptr;
    const ia::MachineProfile* profile = nullptr;
    const Provenance* provenance = nullptr;  // with --report (run_provenance.hpp)
    // What the busiest rank reserves before the first operator (0 for device tiles), and the
    // seconds that takes at the profile's first-touch rate.
    std::int64_t predicted_reserved_bytes = 0;
    double predicted_reserve_seconds = 0;
    std::int64_t iterations = 1;  // the loop iterations this run took (1 without a loop)
};

// Operators whose measured bytes differ from the prediction (whole run or one rank), and loop
// iterations whose bytes differ from their prediction, one line each.
std::vector<std::string> byte_mismatches(const runtime::ExecutionResult& result);

void print_run_table(const RunSummary& run);

// Throws Error (Failed) when the file cannot be written.
void write_run_report(const RunSummary& run, const std::string& path);

// Where two relations differ beyond the dtype's tolerance, or "" when they agree. A tensor's
// elements past `cropped` (Output::shape, empty for none: the padding an output does not
// write) are not compared.
std::string compare_relations(const TensorRelation& got, const TensorRelation& want,
                              const Shape& cropped = {});

}  // namespace tra::cli
