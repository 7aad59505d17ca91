#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>

#include <mpi.h>

#include "ia/plan_costs.hpp"
#include "json_writer.hpp"
#include "plan_choice.hpp"
#include "runtime/device_context.hpp"
#include "runtime/executor.hpp"
#include "runtime/launch_environment.hpp"
#include "runtime/output_files.hpp"
#include "runtime/reference_evaluator.hpp"
#include "runtime/tensor_diff.hpp"
#include "verbs.hpp"
#include "workflow/plan_file.hpp"
#include "workflow/workflow_loader.hpp"

// OpenBLAS, when it is the BLAS linked in: lets a rank cap its threads after start-up.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));

namespace tra::cli {

namespace {

struct RunOptions {
    std::string workflow;
    std::string out_dir;
    std::string plan;
    std::string report;
    bool reference = false;
    bool force = false;
    bool progress = false;
    bool check = false;
    std::string device = "cpu";
};

void run_reference(const RunOptions& opt) {
    if (auto ranks = runtime::launcher_world_size(); ranks && *ranks > 1)
        throw Error("--reference evaluates on one process, but the launcher started " +
                    std::to_string(*ranks) + " ranks; run it without mpirun or with -n 1");
    workflow::LoadOptions load;
    load.output_dir = opt.out_dir;
    const auto start = std::chrono::steady_clock::now();
    const Program p = workflow::load_workflow(opt.workflow, load);
    runtime::OutputFiles files(p, opt.force);
    runtime::ReferenceEvaluator evaluator(p);
    for (NodeId id = 0; id < p.nodes.size(); ++id) {
        if (!p.node(id).needed) continue;
        const auto t0 = std::chrono::steady_clock::now();
        const TensorRelation& r = evaluator.evaluate(id);
        if (opt.progress)
            std::cerr << "  " << p.node(id).name << ": " << r.tuples.size() << " tuples in "
                      << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()
                      << " s\n";
    }
    for (const Output& o : p.outputs) files.write(o, evaluator.evaluate(o.node));
    files.commit();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (const Output& o : p.outputs)
        std::cout << "wrote " << p.node(o.node).name << " to " << o.file << ":" << o.dataset << "\n";
    std::cout << "reference evaluation of " << p.name << " took " << seconds << " s\n";
}

// ---- the distributed path (docs/runtime.md) -------------------------------------------------

bool is_plan_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    static const std::regex format_line(R"((^|\n)format:\s*"?tra-plan/)");
    return std::regex_search(text.str(), format_line);
}

// BLAS threads per rank: OPENBLAS_NUM_THREADS / OMP_NUM_THREADS when set; otherwise the cores
// of the node divided by the ranks on it (at least 1), so ranks never oversubscribe the cores.
void share_cores_with_blas() {
    if (std::getenv("OPENBLAS_NUM_THREADS") || std::getenv("OMP_NUM_THREADS")) return;
    if (!openblas_set_num_threads) return;
    int local = 1;
    if (const char* v = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE")) local = std::max(1, std::atoi(v));
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    openblas_set_num_threads(std::max(1, cores / local));
}

// A phase every rank runs; if it fails on any rank, the lowest failing rank prints its error
// and every rank learns the exit code (so a deterministic failure ends all ranks alike).
struct Agreement {
    MPI_Comm comm;
    int rank, size;

    // Returns 0 when every rank succeeded, else the failing rank's exit code.
    template <class F>
    int phase(F&& work) {
        int code = 0;
        std::string message;
        try {
            work();
        } catch (const Error& e) {
            code = e.exit_code();
            message = e.what();
        } catch (const std::exception& e) {
            code = 1;
            message = e.what();
        }
        int first = code ? rank : size, lowest = size;
        MPI_Allreduce(&first, &lowest, 1, MPI_INT, MPI_MIN, comm);
        if (lowest == size) return 0;
        if (rank == lowest)
            std::cerr << "tra: error" << (size > 1 ? " (rank " + std::to_string(rank) + ")" : "")
                      << ": " << message << "\n";
        MPI_Bcast(&code, 1, MPI_INT, lowest, comm);
        return code;
    }
};

[[noreturn]] void abort_run(int rank, int size, const std::string& message, int code) {
    std::cerr << "tra: error" << (size > 1 ? " (rank " + std::to_string(rank) + ")" : "") << ": "
              << message << "\ntra: run aborted; no output was written at its final name\n";
    std::cerr.flush();
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
}

void broadcast_string(std::string& s, MPI_Comm comm) {
    long long n = static_cast<long long>(s.size());
    MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm);
    s.resize(static_cast<std::size_t>(n));
    if (n) MPI_Bcast(s.data(), static_cast<int>(n), MPI_CHAR, 0, comm);
}

// Where two relations differ beyond the dtype's tolerance, or "" when they agree.
std::string compare(const TensorRelation& got, const TensorRelation& want) {
    const auto tol = runtime::Tolerance::for_dtypes(got.type.dtype, want.type.dtype);
    if (got.tuples.size() != want.tuples.size())
        return std::to_string(got.tuples.size()) + " tuples, the reference has " +
               std::to_string(want.tuples.size());
    for (const auto& [k, w] : want.tuples) {
        auto it = got.tuples.find(k);
        if (it == got.tuples.end()) return "tuple " + k.str() + " is missing";
        const Tile& g = it->second;
        if (g.shape() != w.shape()) return "tuple " + k.str() + " has shape " + g.shape().str();
        for (std::int64_t i = 0; i < w.elements(); ++i) {
            const double x = g.get(i), y = w.get(i);
            if (std::isnan(x) && std::isnan(y)) continue;
            if (!(std::fabs(x - y) <= tol.atol + tol.rtol * std::fabs(y)))
                return "tuple " + k.str() + " element " + std::to_string(i) + ": " +
                       std::to_string(x) + " vs reference " + std::to_string(y);
        }
    }
    return "";
}

struct Prepared {
    std::unique_ptr<const Program> program;   // the plan points at it (after logical rewrites)
    std::unique_ptr<const Program> original;  // the workflow as loaded: the --check oracle
    std::optional<ia::Plan> plan;
    std::string name;
    ia::PlanTotals totals;
    std::unique_ptr<runtime::OutputFiles> files;  // rank 0
};

int run_distributed(const RunOptions& opt) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) MPI_Init(nullptr, nullptr);
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    Agreement agree{comm, rank, size};
    auto finish = [](int code) {
        MPI_Finalize();
        return code;
    };
    share_cores_with_blas();
    const double start = MPI_Wtime();

    // 0. The device every rank computes on (docs/gpu.md).
    runtime::DeviceContext device;
    if (int code = agree.phase(
            [&] { device = runtime::open_device(runtime::parse_device(opt.device), comm); }))
        return finish(code);
    // On GPU runs a site holds its tiles in GPU memory: plans must fit the fullest GPU.
    std::optional<std::int64_t> memory_per_site;
    if (device.device == runtime::Device::Gpu) memory_per_site = device.free_bytes;

    workflow::LoadOptions load;
    load.output_dir = opt.out_dir;
    Prepared prep;
    const bool plan_file = is_plan_file(opt.workflow);

    // 1. Load (every rank) and choose the plan (rank 0 for a workflow).
    std::string choice;  // rank 0 -> all: the plan name, then INPUT=PLACEMENT per input
    if (int code = agree.phase([&] {
            if (plan_file) {
                if (!opt.plan.empty())
                    throw Error("--plan picks among a workflow's plans; " + opt.workflow +
                                " is a plan file, which is the plan");
                auto loaded = workflow::load_plan_file(opt.workflow, load);
                if (loaded.plan.sites() != size)
                    throw Error("plan file " + opt.workflow + " was made for " +
                                std::to_string(loaded.plan.sites()) + " sites, but this run has " +
                                std::to_string(size) + " ranks; run it with mpirun -n " +
                                std::to_string(loaded.plan.sites()) + " or plan again with --sites " +
                                std::to_string(size));
                prep.name = loaded.name;
                prep.plan.emplace(loaded.plan);
                prep.program = std::move(loaded.program);
            } else {
                prep.original = std::make_unique<const Program>(workflow::load_workflow(opt.workflow, load));
                if (rank == 0) {
                    PlanRequest request;
                    request.workflow = opt.workflow;
                    request.sites = size;
                    request.plan = opt.plan;
                    request.top = static_cast<std::size_t>(-1);
                    request.memory_per_site = memory_per_site;
                    const RankedPlans ranked = rank_plans(request);
                    const auto& chosen = choose_plan(ranked, opt.plan);
                    choice = chosen.name + "\n";
                    for (const ia::IaNode& n : chosen.plan.nodes())
                        if (n.op == ia::IaOp::Input)
                            choice += chosen.plan.origin(n.id).name + "=" + n.placement.str() + "\n";
                }
            }
        }))
        return finish(code);

    // 2. Every rank rebuilds exactly the chosen plan: pins = its name, inputs where it put them.
    if (!plan_file) broadcast_string(choice, comm);
    if (int code = agree.phase([&] {
            if (!plan_file) {
                // The same ranking as rank 0's (same logical rewrites, same search), restricted by
                // pins = the plan's name and the inputs where it put them: exactly one plan.
                std::stringstream in(choice);
                std::getline(in, prep.name);
                PlanRequest request;
                request.workflow = opt.workflow;
                request.sites = size;
                // A plan with no join or aggregate to choose has a name without pins ("table1").
                request.plan = prep.name.find('=') == std::string::npos ? "" : prep.name;
                request.top = static_cast<std::size_t>(-1);
                request.memory_per_site = memory_per_site;
                std::string line;
                while (std::getline(in, line)) request.input_placements.push_back(line);
                RankedPlans ranked = rank_plans(request);
                if (ranked.plans.size() != 1 || ranked.plans.front().name != prep.name)
                    throw Error("rebuilding plan " + prep.name + " gave " +
                                    std::to_string(ranked.plans.size()) + " plans",
                                {}, ErrorKind::Failed);
                // Outputs where this run writes them (--out-dir), in workflow order.
                Program& program = *ranked.program;
                if (program.outputs.size() != prep.original->outputs.size())
                    throw Error("the planned program lost an output", {}, ErrorKind::Failed);
                for (std::size_t i = 0; i < program.outputs.size(); ++i)
                    program.outputs[i].file = prep.original->outputs[i].file;
                prep.plan.emplace(std::move(ranked.plans.front().plan));
                prep.program = std::move(ranked.program);
            }
            if (rank == 0) prep.files = std::make_unique<runtime::OutputFiles>(*prep.program, opt.force);
            prep.totals = ia::annotate_costs(*prep.plan);
        }))
        return finish(code);
    const ia::Plan& plan = *prep.plan;

    // 3. Execute. A failure here may leave other ranks inside an exchange: end the whole job.
    runtime::ExecuteOptions exec;
    exec.memory = {device.tiles(), device.messages()};
    if (rank == 0 && opt.progress)
        exec.progress = [&](std::size_t done, std::size_t total, std::int64_t bytes) {
            std::fprintf(stderr, "\r  %zu/%zu operators, %s moved, %.1f s", done, total,
                         human_bytes(static_cast<double>(bytes)).c_str(), MPI_Wtime() - start);
            if (done == total) std::fprintf(stderr, "\n");
        };
    runtime::ExecutionResult result;
    try {
        result = runtime::execute(plan, comm, exec);
    } catch (const Error& e) {
        prep.files.reset();  // removes any temporary output file before the job ends
        abort_run(rank, size, e.what(), e.exit_code());
    } catch (const std::exception& e) {
        prep.files.reset();
        abort_run(rank, size, e.what(), 1);
    }

    // 4. Rank 0 writes the outputs, checks, reports; the others wait for its verdict.
    int exit_code = 0;
    if (rank == 0) {
        try {
            const Program& p = *prep.program;
            const double w0 = MPI_Wtime();
            for (const Output& o : p.outputs) prep.files->write(o, result.outputs.at(o.node));
            auto& write = result.operators.back();
            write.seconds += MPI_Wtime() - w0;
            const double seconds = MPI_Wtime() - start;

            std::int64_t measured = 0, overhead = 0, predicted = 0, predicted_overhead = 0;
            std::vector<std::string> problems;
            for (const auto& r : result.operators) {
                if (r.op == "write") continue;  // not part of the plan's prediction
                measured += r.measured_payload;
                overhead += r.measured_overhead;
                predicted += r.predicted_payload;
                predicted_overhead += r.predicted_overhead;
            }
            for (const auto& r : result.operators) {
                if (r.measured_payload != r.predicted_payload || r.measured_overhead != r.predicted_overhead)
                    problems.push_back("operator #" + std::to_string(r.id) + " " + r.op + " moved " +
                                       std::to_string(r.measured_payload) + " + " +
                                       std::to_string(r.measured_overhead) + " bytes, predicted " +
                                       std::to_string(r.predicted_payload) + " + " +
                                       std::to_string(r.predicted_overhead));
                for (const auto& m : r.rank_mismatches)
                    problems.push_back("operator #" + std::to_string(r.id) + " " + r.op + ": " + m);
            }

            std::cout << "ran plan " << (prep.name.empty() ? "(no choices)" : prep.name) << " of "
                      << p.name << " on " << size << " site" << (size == 1 ? "" : "s") << " in "
                      << seconds << " s\n";
            if (device.device == runtime::Device::Gpu)
                std::cout << "device: " << device.str() << "\n";
            std::printf("%4s  %-16s %10s %14s %14s %12s %12s %14s\n", "id", "op", "seconds",
                        "measured", "predicted", "overhead", "predicted", "peak/rank");
            for (const auto& r : result.operators)
                std::printf("%4lld  %-16s %10.4f %14lld %14lld %12lld %12lld %14lld\n",
                            static_cast<long long>(r.id), r.op.c_str(), r.seconds,
                            static_cast<long long>(r.measured_payload),
                            static_cast<long long>(r.predicted_payload),
                            static_cast<long long>(r.measured_overhead),
                            static_cast<long long>(r.predicted_overhead),
                            static_cast<long long>(r.peak_bytes));
            std::printf("total: %lld bytes payload (predicted %lld) + %lld overhead (predicted %lld); "
                        "peak %lld bytes per rank (plan predicts %lld without exchange buffers)\n",
                        static_cast<long long>(measured), static_cast<long long>(predicted),
                        static_cast<long long>(overhead), static_cast<long long>(predicted_overhead),
                        static_cast<long long>(result.peak_bytes),
                        static_cast<long long>(prep.totals.peak_bytes));
            std::fflush(stdout);

            if (!opt.report.empty()) {
                std::ofstream out(opt.report);
                JsonWriter j(out);
                j.begin_object();
                j.field("sites", size).field("plan", prep.name).field("seconds", seconds);
                j.field("device", opt.device);
                if (device.device == runtime::Device::Gpu)
                    j.field("gpu", device.gpu_name).field("gpu_free_bytes", device.free_bytes);
                j.key("operators").begin_array();
                for (const auto& r : result.operators) {
                    j.begin_object();
                    j.field("id", r.id).field("op", r.op).field("seconds", r.seconds);
                    j.field("measured_bytes", r.measured_payload).field("predicted_bytes", r.predicted_payload);
                    j.field("overhead_bytes", r.measured_overhead)
                        .field("predicted_overhead_bytes", r.predicted_overhead);
                    j.field("peak_bytes", r.peak_bytes);
                    j.end_object();
                }
                j.end_array();
                j.field("measured_bytes", measured).field("predicted_bytes", predicted);
                j.field("overhead_bytes", overhead).field("predicted_overhead_bytes", predicted_overhead);
                j.field("peak_bytes", result.peak_bytes).field("predicted_peak_bytes", prep.totals.peak_bytes);
                j.end_object();
                out << "\n";
                if (!out) throw Error("cannot write the report " + opt.report, {}, ErrorKind::Failed);
            }

            // Outputs appear at their final names only once everything else has succeeded.
            prep.files->commit();
            for (const Output& o : p.outputs)
                std::cout << "wrote " << p.node(o.node).name << " to " << o.file << ":" << o.dataset << "\n";

            if (opt.check) {
                for (const auto& msg : problems) std::cout << "check: bytes differ: " << msg << "\n";
                if (!problems.empty()) exit_code = 1;
                // The oracle evaluates the workflow as written, before any logical rewrite.
                const Program& oracle = prep.original ? *prep.original : p;
                runtime::ReferenceEvaluator reference(oracle);
                for (std::size_t i = 0; i < p.outputs.size(); ++i) {
                    const Output& o = p.outputs[i];
                    const std::string diff = compare(result.outputs.at(o.node),
                                                     reference.evaluate(oracle.outputs.at(i).node));
                    if (!diff.empty()) {
                        std::cout << "check: " << p.node(o.node).name << " differs from the reference: "
                                  << diff << "\n";
                        exit_code = 1;
                    }
                }
                if (exit_code == 0)
                    std::cout << "check: outputs equal the reference evaluator's; measured bytes "
                                 "equal the prediction for every operator\n";
            }
        } catch (const Error& e) {
            prep.files.reset();  // removes the temporary output files before the job ends
            abort_run(rank, size, e.what(), e.exit_code());
        } catch (const std::exception& e) {
            prep.files.reset();
            abort_run(rank, size, e.what(), 1);
        }
    }
    MPI_Bcast(&exit_code, 1, MPI_INT, 0, comm);
    return finish(exit_code);
}

}  // namespace

void add_run(CLI::App& app, int& exit_code) {
    auto* cmd = app.add_subcommand(
        "run", "Run a workflow or plan file: one site per MPI rank (mpirun -n S tra run ...), "
               "or one site without a launcher");
    auto opt = std::make_shared<RunOptions>();
    cmd->add_option("workflow", opt->workflow, "Workflow YAML file, or a plan file (tra plan -o)")
        ->required();
    cmd->add_option("--plan", opt->plan,
                    "Which plan: a rank N as listed by `tra plan --sites S` (default 1, the "
                    "cheapest), or pins NODE=strategy,...");
    cmd->add_option("--report", opt->report, "Write the run report as JSON to this file");
    cmd->add_flag("--check", opt->check,
                  "Also evaluate with the reference evaluator and compare every output; exit 1 "
                  "if they differ or if any operator's measured bytes differ from the prediction");
    cmd->add_flag("--reference", opt->reference,
                  "Evaluate with the single-process reference evaluator (the oracle)");
    cmd->add_option("--out-dir", opt->out_dir,
                    "Resolve relative output paths against this folder instead of the "
                    "workflow's folder");
    cmd->add_flag("--force", opt->force, "Replace existing output files");
    cmd->add_option("--device", opt->device,
                    "cpu (default) or gpu: each rank computes on the GPU of its local rank "
                    "(TRA_GPU=N overrides; needs a build with -DTRA_CUDA=ON, docs/gpu.md)");
    cmd->add_flag("--progress", opt->progress,
                  "Show progress on stderr (default when stderr is a terminal)");
    cmd->callback([opt, cmd, &exit_code] {
        if (opt->reference) {
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
