// runtime::execute on the ranks of MPI_COMM_WORLD, run under mpiexec -n 1..4: every plan the
// search finds for small programs is executed; each operator's measured bytes must equal the
// plan's exact prediction on every rank, and the output file must hold the values computed
// here by plain loops. With --verify, outputs recomputed a chunk of tiles at a time.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "ia/initial_plan.hpp"
#include "ia/plan_costs.hpp"
#include "kernel_fixtures.hpp"
#include "mpi_fixtures.hpp"
#include "optimizer/search.hpp"
#include "program_fixtures.hpp"
#include "runtime/executor.hpp"
#include "runtime/output_files.hpp"
#include "runtime/rank_agreement.hpp"
#include "temp_dir.hpp"
#include "tra/program_builder.hpp"

namespace {

using namespace tra;
using kernels::KernelCall;
using tra::testing::at;
using tra::testing::from_rank0;
using tra::testing::rank_in_world;
using tra::testing::world_size;

InputSource arange(double start, double step) {
    InputSource s;
    s.generate = storage::GeneratorSpec{storage::GeneratorSpec::Kind::Arange, start, step, 0};
    return s;
}

// The values of an arange input: start + step * (row-major index).
std::vector<double> arange_values(std::int64_t rows, std::int64_t cols, double start, double step) {
    std::vector<double> v(static_cast<std::size_t>(rows * cols));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = start + step * static_cast<double>(i);
    return v;
}

// C = A B for A of m x k (tiles 4 x 4) and B of k x n (tiles 4 x 3); aranges of integers and
// halves, so every product and sum is exact in f64 whatever the order of summation.
constexpr std::int64_t kM = 8, kK = 12, kN = 6, kTm = 4, kTk = 4, kTn = 3;
Program matmul(const std::string& out_file) {
    ProgramBuilder b("mm", DType::F64);
    b.add_input("A", Shape{kM, kK}, Shape{kTm, kTk}, DType::F64, arange(0, 1), at("A"));
    b.add_input("B", Shape{kK, kN}, Shape{kTk, kTn}, DType::F64, arange(3, 0.5), at("B"));
    b.add_join("AB", "A", "B", {1}, {0}, KernelCall("matmul"), at("AB"));
    b.add_aggregate("C", "AB", {0, 2}, KernelCall("add"), at("C"));
    b.add_output("C", out_file, "/C", at("out"));
    return b.finish();
}

std::vector<double> matmul_by_loops() {
    const auto a = arange_values(kM, kK, 0, 1), b = arange_values(kK, kN, 3, 0.5);
    std::vector<double> c(static_cast<std::size_t>(kM * kN), 0.0);
    for (std::int64_t i = 0; i < kM; ++i)
        for (std::int64_t j = 0; j < kN; ++j)
            for (std::int64_t l = 0; l < kK; ++l)
                c[static_cast<std::size_t>(i * kN + j)] += a[static_cast<std::size_t>(i * kK + l)] *
                                                           b[static_cast<std::size_t>(l * kN + j)];
    return c;
}

// Runs `plan` with its output in a fresh temporary file; on rank 0 returns the report and the
// output as written, elsewhere the local report and nothing.
struct Run {
    runtime::ExecutionResult result;
    std::optional<TensorRelation> output;
};
Run run_plan(const Program& program, const ia::Plan& plan, std::size_t max_message_bytes) {
    const bool root = rank_in_world() == 0;
    std::optional<runtime::OutputFiles> files;
    std::string path;
    if (root) {
        files.emplace(program, true);
        files->create_datasets(program);
        path = files->temp_paths(program).at(0);
    }
    runtime::ExecuteOptions options;
    options.output_paths = {from_rank0(path)};
    options.max_message_bytes = max_message_bytes;
    Run run;
    run.result = runtime::execute(plan, MPI_COMM_WORLD, options);
    if (root)
        run.output = files->read(program.outputs.at(0), program.node(program.outputs.at(0).node));
    return run;
}

}  // namespace

TEST_CASE("every plan of a matrix product moves the predicted bytes and writes A B") {
    const int me = rank_in_world(), sites = world_size();
    std::optional<tra::testing::TempDir> dir;
    if (me == 0) dir.emplace("mpi-executor");
    const Program program = matmul(from_rank0(me == 0 ? dir->file("out.h5") : ""));
    optimizer::SearchOptions search;
    search.top_k = 1000;
    std::vector<optimizer::RankedPlan> plans = optimizer::search_plans(program, sites, search);
    REQUIRE(!plans.empty());
    const std::vector<double> want = matmul_by_loops();
    for (auto& ranked : plans)
        for (const std::size_t limit : {runtime::kMaxMessageBytes, std::size_t{40}}) {
            CAPTURE(ranked.name, sites, limit);
            ia::annotate_costs(ranked.plan);
            const Run run = run_plan(program, ranked.plan, limit);
            if (me != 0) continue;  // the report is reduced onto rank 0
            const auto& ops = run.result.operators;
            REQUIRE(ops.size() == ranked.plan.size() + 1);  // every IA node, then `write`
            for (const runtime::OperatorRun& op : ops) {
                CAPTURE(op.id, op.op);
                CHECK(op.measured_payload == op.predicted_payload);
                CHECK(op.measured_overhead == op.predicted_overhead);
                CHECK(op.rank_mismatches.empty());
            }
            CHECK(ops.back().op == "write");
            REQUIRE(run.output);
            std::size_t tiles = 0;
            for (const auto& [key, tile] : run.output->tuples) {
                ++tiles;
                for (std::int64_t r = 0; r < kTm; ++r)
                    for (std::int64_t c = 0; c < kTn; ++c) {
                        const std::int64_t i = key[0] * kTm + r, j = key[1] * kTn + c;
                        CHECK(tile.get(r * kTn + c) == want[static_cast<std::size_t>(i * kN + j)]);
                    }
            }
            CHECK(tiles == static_cast<std::size_t>((kM / kTm) * (kN / kTn)));
        }
}

TEST_CASE("a plan for another number of sites is refused before anything runs") {
    const int sites = world_size();
    const Program program = matmul("unused.h5");
    std::vector<optimizer::RankedPlan> plans = optimizer::search_plans(program, sites + 1);
    REQUIRE(!plans.empty());
    runtime::ExecuteOptions options;
    options.output_paths = {"unused.h5"};
    CHECK_THROWS_WITH(runtime::execute(plans.front().plan, MPI_COMM_WORLD, options),
                      "the plan is for " + std::to_string(sites + 1) + " sites, the run has " +
                          std::to_string(sites) + " ranks");
}

TEST_CASE("--verify recomputes large outputs a chunk of tiles at a time and catches a change") {
    // D = relu(A) and E = scale(2)(A), A of 8 tiles of 2 MiB (1..4 per rank): the checks
    // recompute each output from A in chunks of about 4 MiB, so 1 and 2 ranks take several
    // chunks. E is checked after D, from the A that D's check put back; both are written right.
    const int me = rank_in_world();
    std::optional<tra::testing::TempDir> dir;
    if (me == 0) dir.emplace("mpi-verify-chunks");
    const std::string file = from_rank0(me == 0 ? dir->file("out.h5") : "");
    constexpr std::int64_t rows = 8 * 256, cols = 1024;
    ProgramBuilder b("maps", DType::F64);
    b.add_input("A", Shape{rows, cols}, Shape{256, cols}, DType::F64, arange(1, 1), at("A"));
    b.add_transform("D", "A", KernelCall("relu"), at("D"));
    b.add_transform("E", "A", KernelCall("scale", kernel_testing::factor_params(2.0)), at("E"));
    b.add_output("D", file, "/D", at("out"));
    b.add_output("E", file, "/E", at("out"));
    const Program program = b.finish();
    ia::Plan plan = ia::compile_initial(program, world_size());
    ia::annotate_costs(plan);

    const auto run = [&] {
        std::optional<runtime::OutputFiles> files;
        std::vector<std::string> paths;
        if (me == 0) {
            files.emplace(program, true);
            files->create_datasets(program);
            paths = files->temp_paths(program);
        }
        runtime::ExecuteOptions options;
        for (std::size_t i = 0; i < 2; ++i)
            options.output_paths.push_back(from_rank0(me == 0 ? paths.at(i) : ""));
        options.verify = true;
        const runtime::ExecutionResult result = runtime::execute(plan, MPI_COMM_WORLD, options);
        if (me != 0) return;
        CHECK(result.verification.find("D (recomputed") != std::string::npos);
        CHECK(result.verification.find("E (recomputed") != std::string::npos);
        for (std::size_t i = 0; i < 2; ++i) {
            const Output& out = program.outputs.at(i);
            const TensorRelation written = files->read(out, program.node(out.node));
            CHECK(written.tuples.size() == 8);
            for (const auto& [key, tile] : written.tuples)
                for (std::int64_t e = 0; e < tile.elements(); e += 4099) {
                    const double a = 1 + static_cast<double>(key[0] * 256 * cols + e);
                    CHECK(tile.get(e) == (i == 0 ? a : 2 * a));
                }
        }
    };
    run();
    // The first tile of D's map on rank 0 changed after it was made: caught, the run fails.
    setenv("TRA_FAULT", "corrupt@0:map", 1);
    CHECK_THROWS_AS(run(), runtime::AgreedFailure);
    unsetenv("TRA_FAULT");
}
