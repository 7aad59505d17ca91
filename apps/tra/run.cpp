#include <mpi.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "kernels/blas_threads.hpp"
#include "plan_request.hpp"
#include "run_memory.hpp"
#include "run_options.hpp"
#include "run_prepare.hpp"
#include "run_provenance.hpp"
#include "run_resume.hpp"
#include "runtime/broadcast_text.hpp"
#include "runtime/executor.hpp"
#include "runtime/host_layout.hpp"
#include "runtime/output_files.hpp"
#include "runtime/rank_agreement.hpp"
#include "runtime/reference_evaluator.hpp"
#include "runtime/run_backstop.hpp"
#include "runtime/tile_reservation.hpp"
#include "verbs.hpp"

namespace tra::cli {

namespace {

// TRA_MAX_MESSAGE_BYTES (the tests lower it so exchanges travel in pieces): a whole number of
// bytes, at least 1; unset, runtime::kMaxMessageBytes.
std::size_t message_limit_from_environment() {
    const char* v = std::getenv("TRA_MAX_MESSAGE_BYTES");
    if (!v) return runtime::kMaxMessageBytes;
    const std::string text(v);
    std::size_t used = 0;
    unsigned long long bytes = 0;
    try {
        if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0])))
            bytes = std::stoull(text, &used);
    } catch (const std::exception&) {
        used = 0;  // out of range
    }
    if (used == 0 || used != text.size() || bytes == 0)
        throw Error("TRA_MAX_MESSAGE_BYTES='" + text +
                    "' is not a whole number of bytes of at least 1 (the exchange's largest "
                    "message piece)");
    return static_cast<std::size_t>(bytes);
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Rank 0 reports, checks and renames the outputs into place; returns the exit code (throws on
// failure). Every rank has written its tiles of the outputs into their temporary files.
int finish_on_rank0(const RunOptions& opt, Prepared& prep, const runtime::ExecutionResult& result,
                    const runtime::DeviceContext& device, int size, Clock::time_point start,
                    const Provenance& provenance) {
    const Program& p = *prep.program;
    RunSummary summary{size,         prep.name,    &p,      seconds_since(start),
                       &result,      &prep.totals, &device, &prep.predicted_seconds,
                       &prep.profile};
    summary.provenance = &provenance;
    summary.iterations = result.iterations_run;
    if (device.tiles() == Residence::Host) {  // device tiles reserve nothing
        summary.predicted_reserved_bytes = runtime::reserved_bytes_at_peak(
            *prep.plan, prep.verification ? &*prep.verification : nullptr, &prep.scratch);
        const double rate = prep.profile.first_touch_bytes_per_second;
        if (rate > 0)
            summary.predicted_reserve_seconds =
                static_cast<double>(summary.predicted_reserved_bytes) / rate;
    }
    print_run_table(summary);
    if (opt.verify) std::cout << result.verification << " (" << result.verify_seconds << " s)\n";
    if (!opt.report.empty()) write_run_report(summary, opt.report);

    // --check reads back what the ranks wrote and compares it with the reference evaluator's.
    std::vector<std::string> problems;
    if (opt.check) {
        for (const auto& msg : byte_mismatches(result)) problems.push_back("bytes differ: " + msg);
        // The oracle evaluates the workflow as written, before any logical rewrite.
        const Program& oracle = prep.original ? *prep.original : p;
        runtime::ReferenceEvaluator reference(oracle);
        reference.evaluate_outputs([&](std::size_t i, const TensorRelation& expected) {
            const Output& o = p.outputs.at(i);
            const std::string diff =
                compare_relations(prep.files->read(o, p.node(o.node)), expected, o.shape);
            if (!diff.empty())
                problems.push_back(p.node(o.node).name +
                                   (o.iteration ? " (" + o.dataset + ")" : std::string()) +
                                   " differs from the reference: " + diff);
        });
    }

    // Outputs appear at their final names only once everything else has succeeded.
    prep.files->commit();
    for (const Output& o : p.outputs)
        std::cout << "wrote " << p.node(o.node).name << " to " << o.file << ":" << o.dataset
                  << "\n";
    if (!opt.check) return 0;
    for (const auto& msg : problems) std::cout << "check: " << msg << "\n";
    if (!problems.empty()) return 1;
    std::cout << "check: outputs equal the reference evaluator's; measured bytes equal the "
                 "prediction for every operator\n";
    return 0;
}

int run_distributed(const RunOptions& opt) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) MPI_Init(nullptr, nullptr);
    MPI_Comm comm = MPI_COMM_WORLD;
    const runtime::RankAgreement agree(comm);
    const int rank = agree.rank(), size = agree.size();
    const Clock::time_point start = Clock::now();
    const double started = MPI_Wtime();  // --timeout counts from here on every rank
    // --timeout and the per-operator limits where no rank waits for another (one rank, planning,
    // a rank busy past its operator's limit): each rank's own timer (runtime/run_backstop.hpp);
    // the execution's waits have the roll call.
    runtime::RunBackstop backstop(rank, size, opt.timeout, opt.timeout,
                                  opt.operator_timeout_factor > 0);
    backstop.set_place("planning (before the first operator)");
    Prepared prep;
    try {
        const runtime::HostLayout hosts = runtime::discover_hosts(comm);
        int threads = 1;
        std::size_t max_message_bytes = runtime::kMaxMessageBytes;
        agree.step([&] {
            threads = runtime::share_cores_with_blas(opt.threads, hosts.mine());
            max_message_bytes = message_limit_from_environment();
        });
        if (rank == 0) {
            const std::string core = kernels::blas_core_name();
            for (const auto& line : hosts.lines())
                std::cout << line << ", " << threads << " BLAS thread" << (threads == 1 ? "" : "s")
                          << " per rank" << (core.empty() ? "" : ", OpenBLAS core " + core) << "\n";
            for (const auto& w : runtime::oversubscription_warnings(hosts, threads))
                std::cerr << "tra: warning: " << w << "\n";
            // Rank 0's library stands for all: every rank loads the same one on a uniform cluster.
            if (kernels::blas_core_is_fallback())
                std::cerr << "tra: warning: OpenBLAS does not recognise this CPU and runs its "
                             "generic Prescott kernels (about 3x slower); set OPENBLAS_CORETYPE "
                             "to the CPU's family (e.g. Haswell, SkylakeX, Zen)\n";
            std::cout.flush();
        }
        // The device every rank computes on (docs/gpu.md); on GPU runs a site holds its tiles in
        // GPU memory. A default budget chooses among the plans (as `tra plan --memory-per-site`
        // does); an explicit --memory-per-site is checked below with its "needs X, have Y"
        // message instead.
        runtime::DeviceContext device;
        agree.step([&] { device = runtime::open_device(runtime::parse_device(opt.device), comm); });
        const Budget budget = memory_budget(opt, device, hosts, agree, comm);
        if (rank == 0 && !opt.memory_per_site && budget.bytes > 0) {
            std::cout << "memory budget: " << budget.bytes << " bytes ("
                      << human_bytes(static_cast<double>(budget.bytes)) << ") per rank, "
                      << budget.reason << "\n";
            std::cout.flush();
        }
        std::optional<std::int64_t> plan_memory;
        if (!opt.memory_per_site && budget.bytes > 0) plan_memory = budget.bytes;
        prep = prepare(opt, agree, comm, plan_memory, hosts, device.tiles());
        if (rank == 0) warn_if_profile_differs(prep.profile, threads);
        agree.step([&] {
            check_memory(budget, prep.name,
                         prep.totals.peak_per_site.at(static_cast<std::size_t>(rank)), rank);
        });
        // A loop's checkpoints, and where it resumes (run_resume.hpp).
        agree.step([&] {
            if (!prep.program->repeat && (!opt.checkpoint_dir.empty() || !opt.resume_dir.empty()))
                throw Error("--checkpoint and --resume save and restore a loop; " + opt.workflow +
                            " has no repeat:");
        });
        const ResumePoint resume = find_resume_point(opt, prep, size, agree, comm);
        // The inputs as this run reads them: examined (and hashed) before the first operator.
        Provenance provenance;
        if (!opt.report.empty())  // the same on every rank
            agree.step([&] {
                if (rank == 0) provenance = collect_provenance(opt, prep, hosts, threads);
            });
        std::vector<std::string> paths;
        agree.step([&] {
            if (rank != 0) return;
            prep.files = std::make_unique<runtime::OutputFiles>(*prep.program, opt.force);
            prep.files->create_datasets(*prep.program);
            paths = prep.files->temp_paths(*prep.program);
            restore_observations(resume, *prep.program, paths);
            backstop.remove_on_expiry(paths);
        });

        // Execute. Agreed failures end every rank in order; any other failure happened while
        // peers wait on this rank, so it ends the whole job.
        runtime::ExecuteOptions exec;
        exec.memory = device.exchange_memory();  // with the run's message buffers
        exec.kernel_scratch = &prep.scratch;
        for (std::size_t i = 0; i < prep.program->outputs.size(); ++i) {
            std::string path = rank == 0 ? paths.at(i) : "";
            runtime::broadcast_text(path, comm);
            exec.output_paths.push_back(path);
        }
        exec.memory_budget = opt.memory_per_site.value_or(0);
        exec.max_message_bytes = max_message_bytes;
        exec.trace_dir = opt.trace_dir;
        exec.started = started;
        exec.timeout_seconds = opt.timeout;
        exec.backstop = &backstop;
        exec.operator_timeout_factor = opt.operator_timeout_factor;
        exec.operator_timeout_floor = opt.operator_timeout_floor;
        exec.predicted_seconds = prep.predicted_seconds;
        exec.verify = opt.verify;
        exec.first_iteration = resume.first_iteration;
        exec.input_sources = resume.sources;
        if (prep.program->repeat && !opt.checkpoint_dir.empty()) {
            exec.checkpoint_dir = opt.checkpoint_dir;
            exec.checkpoint_every =
                opt.checkpoint_every > 0
                    ? opt.checkpoint_every
                    : std::max<std::int64_t>(1, prep.program->repeat->times / 10);
        }
        exec.plan_name = prep.name;
        if (rank == 0 && opt.progress)
            exec.progress = [&](std::size_t done, std::size_t total, std::int64_t bytes) {
                std::fprintf(stderr, "\r  %zu/%zu operators, %s moved, %.1f s", done, total,
                             human_bytes(static_cast<double>(bytes)).c_str(), seconds_since(start));
                if (done == total) std::fprintf(stderr, "\n");
            };
        runtime::ExecutionResult result;
        try {
            result = runtime::execute(*prep.plan, comm, exec);
        } catch (const Error& e) {
            prep.files.reset();  // removes any temporary output file before the job ends
            runtime::abort_job(comm, e.what(), e.exit_code());
        } catch (const std::exception& e) {
            prep.files.reset();
            runtime::abort_job(comm, e.what(), 1);
        }

        // 4. Rank 0 writes, reports and checks; the others wait for its exit code.
        backstop.set_place(rank == 0 ? "the report and checks after the operators"
                                     : "the end of the run, waiting for rank 0");
        int code = 0;
        std::string message;
        if (rank == 0) {
            try {
                code = finish_on_rank0(opt, prep, result, device, size, start, provenance);
            } catch (const Error& e) {
                code = e.exit_code();
                message = e.what();
            } catch (const std::exception& e) {
                code = 1;
                message = e.what();
            }
            if (!message.empty()) {
                prep.files.reset();  // removes the temporary output files
                std::cerr << runtime::error_line(rank, size, message) << "\n";
            }
        }
        code = agree.rank0_code(code);
        MPI_Finalize();
        return code;
    } catch (const runtime::AgreedFailure& f) {
        prep.files.reset();
        MPI_Finalize();
        return f.exit_code;
    }
}
}  // namespace

void add_run(CLI::App& app, int& exit_code) {
    auto* cmd = app.add_subcommand(
        "run",
        "Run a workflow or plan file: one site per MPI rank (mpirun -n S tra run ...), "
        "or one site without a launcher");
    auto opt = std::make_shared<RunOptions>();
    cmd->add_option("workflow", opt->workflow, "Workflow YAML file, or a plan file (tra plan -o)")
        ->required();
    cmd->add_option("--plan", opt->plan,
                    "Which plan: a rank N as listed by `tra plan --sites S` (default 1, the "
                    "cheapest), or pins NODE=strategy,...");
    cmd->add_option("--report", opt->report, "Write the run report as JSON to this file");
    cmd->add_option("--trace", opt->trace_dir,
                    "Every rank writes its operators' phases to DIR/rank-R.json (Chrome/Perfetto "
                    "trace-event JSON)");
    cmd->add_option("--timeout", opt->timeout,
                    "End the run when it takes longer than SECONDS, naming the ranks that did not "
                    "arrive where the others wait (default: no limit)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--operator-timeout-factor", opt->operator_timeout_factor,
                    "End the run when an operator takes longer than K x its predicted seconds "
                    "plus --operator-timeout-floor, naming the ranks that did not arrive "
                    "(default 20; 0: no per-operator limit)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--operator-timeout-floor", opt->operator_timeout_floor,
                    "Seconds added to every operator's limit, so operators predicted to take "
                    "milliseconds survive a slow or oversubscribed machine (default 60)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_flag("--hash-inputs", opt->hash_inputs,
                  "Record each input file's content hash (FNV-1a 64, read once more in full) in "
                  "the --report provenance");
    add_cost_options(cmd, opt->cost, opt->time);
    add_max_tuples_option(cmd, opt->max_tuples);
    cmd->add_flag("--check", opt->check,
                  "Also evaluate with the reference evaluator and compare every output; exit 1 "
                  "if they differ or if any operator's measured bytes differ from the prediction");
    cmd->add_flag("--verify", opt->verify,
                  "Check every output against the inputs of the operator that produced it "
                  "before writing it (a randomized Freivalds check for contractions, a "
                  "recomputation otherwise); exit 1, writing nothing, if one fails");
    cmd->add_flag("--reference", opt->reference,
                  "Evaluate with the single-process reference evaluator (the oracle)");
    cmd->add_option("--out-dir", opt->out_dir,
                    "Resolve relative output paths against this folder instead of the "
                    "workflow's folder");
    cmd->add_flag("--force", opt->force,
                  "Replace the datasets the workflow writes in existing output files, keeping "
                  "every other object of those files");
    cmd->add_option("--memory-per-site", opt->memory_per_site,
                    "Bytes each rank may use; the plan's predicted peak per site (exchange "
                    "buffers included) must fit before the run starts (default: 3/4 of the "
                    "tightest limit in force: the host's memory, its cgroup's or Slurm's, a "
                    "host's divided by the ranks on the host; the default also chooses the plan)");
    cmd->add_option(
        "--threads", opt->threads,
        "BLAS threads per rank (default: OPENBLAS_NUM_THREADS or OMP_NUM_THREADS "
        "when set, else the host's cores divided by the ranks on the host, at least 1)");
    cmd->add_option("--device", opt->device,
                    "cpu (default) or gpu: each rank computes on the GPU of its local rank "
                    "(TRA_GPU=N overrides; needs a build with -DTRA_CUDA=ON, docs/gpu.md)");
    cmd->add_option("--checkpoint", opt->checkpoint_dir,
                    "Loops: write the carried values to DIR/checkpoint.h5 (replaced atomically) "
                    "every --checkpoint-every iterations, for --resume");
    cmd->add_option("--checkpoint-every", opt->checkpoint_every,
                    "Loops: iterations between checkpoints (default: a tenth of the loop, at "
                    "least 1)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--resume", opt->resume_dir,
                    "Loops: continue from DIR/checkpoint.h5 when it exists (same plan and ranks), "
                    "else start from the first iteration; outputs equal an uninterrupted run's");
    cmd->add_flag("--progress", opt->progress,
                  "Show progress on stderr (default when stderr is a terminal)");
    cmd->callback([opt, cmd, &exit_code] {
        if (cmd->count("--checkpoint-every") && opt->checkpoint_dir.empty())
            throw Error("--checkpoint-every says how often to write --checkpoint DIR; add it");
        if (cmd->count("--trace") && opt->trace_dir.empty())
            throw Error("--trace needs a folder for the rank-R.json files");
        if (opt->hash_inputs && opt->report.empty())
            throw Error("--hash-inputs records the hashes in the run report; add --report FILE");
        if (opt->reference) {
            if (!opt->trace_dir.empty() || opt->timeout > 0 ||
                cmd->count("--operator-timeout-factor") || cmd->count("--operator-timeout-floor"))
                throw Error(
                    "--trace, --timeout and --operator-timeout-* watch the distributed runtime; "
                    "--reference has no ranks to trace or wait for (drop one of them)");
            if (opt->verify)
                throw Error(
                    "--verify checks a distributed run; --reference is the oracle itself "
                    "(drop one of them)");
            if (!opt->checkpoint_dir.empty() || !opt->resume_dir.empty())
                throw Error(
                    "--checkpoint and --resume save and restore a distributed run; --reference "
                    "runs the whole loop in one process (drop one of them)");
            if (opt->device != "cpu")
                throw Error(
                    "--reference evaluates on the CPU (it is the oracle); drop --device or "
                    "run without --reference");
            run_reference(*opt);
            exit_code = 0;
            return;
        }
        RunOptions o = *opt;
        if (cmd->count("--progress") == 0 && isatty(2)) o.progress = true;
        exit_code = run_distributed(o);
    });
}

}  // namespace tra::cli
