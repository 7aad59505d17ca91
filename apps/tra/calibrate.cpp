// `tra calibrate`: measures this machine's kernels and links on every rank of the run and writes
// a machine profile (docs/machine-profile.md) for the time model.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "ia/program_gemm_shapes.hpp"
#include "kernels/blas_threads.hpp"
#include "runtime/host_layout.hpp"
#include "runtime/machine_calibration.hpp"
#include "runtime/rank_agreement.hpp"
#include "storage/atomic_output.hpp"
#include "verbs.hpp"
#include "workflow/machine_profile_file.hpp"
#include "workflow/workflow_loader.hpp"

namespace tra::cli {

namespace {

struct CalibrateOptions {
    std::string output;
    std::string name;  // else rank 0's host name
    std::optional<int> threads;
    bool quick = false;
    std::vector<std::string> workflows;  // --for: measure their products' shapes too
};

// One call of a larger product takes seconds or more to time, and runs at the square rates anyway.
constexpr double kMaxMeasuredShapeFlops = 1e11;

// The gemm shapes of the joins of `workflows` (ia::program_gemm_shapes), but those whose one call
// exceeds kMaxMeasuredShapeFlops or whose tiles exceed kernels::kMaxShapeBytes; `skipped` gets
// one line per such shape.
ia::ProgramGemmShapes shapes_to_measure(const std::vector<std::string>& workflows,
                                        std::vector<std::string>& skipped) {
    ia::ProgramGemmShapes all;
    const ia::MachineProfile profile = workflow::builtin_machine_profile();
    for (const std::string& path : workflows)
        ia::merge(all, ia::program_gemm_shapes(workflow::load_workflow(path, {}), profile));
    for (const auto& [list, dtype] : {std::pair{&all.f64, DType::F64}, {&all.f32, DType::F32}}) {
        // A named copy: clang 14 cannot capture a structured binding.
        const auto element = static_cast<double>(size_of(dtype));
        std::erase_if(*list, [&](const kernels::GemmShape& g) {
            const double m = static_cast<double>(g.m), n = static_cast<double>(g.n),
                         k = static_cast<double>(g.k);
            const bool long_call = 2 * m * n * k > kMaxMeasuredShapeFlops;
            if (!long_call &&
                (m * k + k * n + m * n) * element <= static_cast<double>(kernels::kMaxShapeBytes))
                return false;
            skipped.push_back(std::to_string(g.m) + " x " + std::to_string(g.k) + " by " +
                              std::to_string(g.k) + " x " + std::to_string(g.n) +
                              (long_call ? " (one call takes seconds" : " (its tiles are large") +
                              "; priced by the square rates)");
            return true;
        });
    }
    return all;
}

std::string engineering(double v, const char* unit) {
    char text[48];
    if (v >= 1e9)
        std::snprintf(text, sizeof text, "%.1f G%s", v / 1e9, unit);
    else if (v >= 1e6)
        std::snprintf(text, sizeof text, "%.1f M%s", v / 1e6, unit);
    else
        std::snprintf(text, sizeof text, "%.3g %s", v, unit);
    return text;
}

std::string micro(double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f us", seconds * 1e6);
    return text;
}

std::string link_line(const ia::LinkRates& l) {
    if (!l.measured) return "unmeasured (the built-in default's rates are used)";
    return "latency " + micro(l.latency_seconds) + ", " + engineering(l.bytes_per_second, "B/s") +
           ", both ways at once " + engineering(l.duplex_bytes_per_second, "B/s") + " each";
}

void print_summary(const ia::MachineProfile& p) {
    for (auto [name, rates] : {std::pair{"f64", &p.f64}, {"f32", &p.f32}}) {
        std::cout << name << " matmul:";
        for (const ia::GemmRate& g : rates->gemm)
            std::cout << " " << g.size << ": " << engineering(g.flops_per_second, "FLOP/s") << ",";
        std::cout << " thin gemm excess operands "
                  << engineering(rates->gemm_operand_excess_bytes_per_second, "B/s") << ", result "
                  << engineering(rates->gemm_result_excess_bytes_per_second, "B/s")
                  << ", einsum loop " << engineering(rates->loop_flops_per_second, "FLOP/s")
                  << ", lanes product";
        for (const ia::LanesRate& l : rates->lanes_by_count)
            std::cout << " " << l.lanes << ": " << engineering(l.flops_per_second, "FLOP/s") << ",";
        if (rates->lanes_by_count.empty())
            std::cout << " " << engineering(rates->lanes_flops_per_second, "FLOP/s");
        std::cout << "\n";
        if (const auto& shapes = rates->gemm_shapes.points(); !shapes.empty()) {
            const auto [slowest, fastest] =
                std::minmax_element(shapes.begin(), shapes.end(),
                                    [](const ia::GemmShapeRate& a, const ia::GemmShapeRate& b) {
                                        return a.flops_per_second < b.flops_per_second;
                                    });
            std::cout << name << " matmul by shape: " << shapes.size() << " shapes, "
                      << engineering(slowest->flops_per_second, "FLOP/s") << " (" << slowest->m
                      << " x " << slowest->k << " by " << slowest->k << " x " << slowest->n
                      << ") to " << engineering(fastest->flops_per_second, "FLOP/s") << " ("
                      << fastest->m << " x " << fastest->k << " by " << fastest->k << " x "
                      << fastest->n << ")\n";
        }
    }
    std::cout << "memory " << engineering(p.memory_bytes_per_second, "B/s") << ", permute "
              << engineering(p.permute_bytes_per_second, "B/s") << ", operator "
              << micro(p.operator_seconds) << ", exchange " << micro(p.exchange_seconds) << " + "
              << micro(p.message_seconds) << " per message"
              << ", kernel call " << micro(p.kernel_call_seconds) << " (einsum "
              << micro(p.einsum_call_seconds) << "), first touch "
              << engineering(p.first_touch_bytes_per_second, "B/s") << "\n"
              << "same host: " << link_line(p.same_host) << "\n"
              << "across hosts: " << link_line(p.across_hosts) << "\n";
}

void write_profile(storage::AtomicOutput& out, const ia::MachineProfile& p) {
    const std::string text = workflow::machine_profile_yaml(p);
    // What the loader refuses must never be written: a measurement that came out as 0 or NaN
    // would otherwise surface only when a later plan reads the file.
    try {
        workflow::read_machine_profile_text(text, out.final_path());
    } catch (const Error& e) {
        throw Error(std::string("the measured profile does not load: ") + e.what(), {},
                    ErrorKind::Failed);
    }
    {
        std::ofstream file(out.temp_path(), std::ios::binary | std::ios::trunc);
        file << text;
        file.flush();
        if (!file)
            throw Error("cannot write machine profile '" + out.temp_path() + "'", {},
                        ErrorKind::Failed);
    }
    out.commit();
}

int calibrate(const CalibrateOptions& opt) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) MPI_Init(nullptr, nullptr);
    MPI_Comm comm = MPI_COMM_WORLD;
    const runtime::RankAgreement agree(comm);
    const int rank = agree.rank();
    const auto start = std::chrono::steady_clock::now();
    // Rank 0's output, opened before measuring so a bad path fails at once, not after minutes.
    std::unique_ptr<storage::AtomicOutput> out;
    try {
        const runtime::HostLayout hosts = runtime::discover_hosts(comm);
        int threads = 1;
        ia::ProgramGemmShapes shapes;
        std::vector<std::string> skipped;
        agree.step([&] {
            shapes = shapes_to_measure(opt.workflows, skipped);
            threads = runtime::share_cores_with_blas(opt.threads, hosts.mine());
            if (rank == 0) out = std::make_unique<storage::AtomicOutput>(opt.output, true);
        });
        runtime::MachineCalibrationOptions options;
        options.quick = opt.quick;
        options.name = opt.name.empty() ? hosts.hosts.front().name : opt.name;
        options.blas_threads = threads;
        options.f64_shapes = shapes.f64;
        options.f32_shapes = shapes.f32;
        if (rank == 0) {
            for (const std::string& shape : skipped)
                std::cerr << "tra: note: not measuring the product " << shape << "\n";
            const std::string core = kernels::blas_core_name();
            for (const auto& line : hosts.lines())
                std::cout << line << ", " << threads << " BLAS thread" << (threads == 1 ? "" : "s")
                          << " per rank" << (core.empty() ? "" : ", OpenBLAS core " + core) << "\n";
            for (const auto& w : runtime::oversubscription_warnings(hosts, threads))
                std::cerr << "tra: warning: " << w << " (the profile measures that)\n";
            if (kernels::blas_core_is_fallback())
                std::cerr << "tra: warning: OpenBLAS does not recognise this CPU and runs its "
                             "generic Prescott kernels (about 3x slower); the profile measures "
                             "them. Set OPENBLAS_CORETYPE (e.g. Haswell, SkylakeX, Zen) for runs "
                             "and calibrate alike\n";
            std::cout.flush();
            options.progress = [](const std::string& what) {
                std::cout << "measuring " << what << "\n" << std::flush;
            };
        }
        ia::MachineProfile profile;
        try {
            profile = runtime::calibrate_machine(comm, hosts, options);
        } catch (const Error& e) {
            out.reset();
            runtime::abort_job(comm, e.what(), e.exit_code());
        } catch (const std::exception& e) {
            out.reset();
            runtime::abort_job(comm, e.what(), 1);
        }
        agree.step([&] {
            if (rank != 0) return;
            write_profile(*out, profile);
            print_summary(profile);
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::printf("wrote %s (%d rank%s, %.1f s)\n", opt.output.c_str(), profile.ranks,
                        profile.ranks == 1 ? "" : "s", seconds);
            std::fflush(stdout);
        });
        MPI_Finalize();
        return 0;
    } catch (const runtime::AgreedFailure& f) {
        out.reset();
        MPI_Finalize();
        return f.exit_code;
    }
}

}  // namespace

void add_calibrate(CLI::App& app, int& exit_code) {
    auto* cmd = app.add_subcommand(
        "calibrate",
        "Measure this machine's kernels and links on every rank (mpirun -n S tra calibrate ..., "
        "or one rank without a launcher) and write a machine profile (docs/machine-profile.md)");
    auto opt = std::make_shared<CalibrateOptions>();
    cmd->add_option("-o,--output", opt->output, "Write the profile to this file (YAML)")
        ->required();
    cmd->add_flag("--quick", opt->quick,
                  "Smaller tiles and fewer repetitions: a rough profile in a few seconds");
    cmd->add_option("--name", opt->name, "The profile's name (default: rank 0's host name)");
    cmd->add_option("--threads", opt->threads,
                    "BLAS threads per rank, as for tra run (default: OPENBLAS_NUM_THREADS or "
                    "OMP_NUM_THREADS when set, else the host's cores divided by the ranks on the "
                    "host, at least 1)");
    cmd->add_option("--for", opt->workflows,
                    "Also measure the matrix products this workflow's joins make, at their own "
                    "shapes (repeatable); plans of it are then priced by those rates");
    cmd->callback([opt, &exit_code] { exit_code = calibrate(*opt); });
}

}  // namespace tra::cli
