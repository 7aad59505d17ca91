// The outputs of a sparse-derived relation (docs/runtime.md, "Sparse inputs and outputs"), run
// under mpiexec -n 1..4 with every output writer this build has: a sparse output holds a chunk
// for each present tile and no other, a dense one every chunk with zeros for the absent tiles;
// both lie over the node's frontier (that of the dense equivalent), and each writer makes the
// same bytes.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "mpi_fixtures.hpp"
#include "optimizer/search.hpp"
#include "program_fixtures.hpp"
#include "runtime/executor.hpp"
#include "runtime/output_files.hpp"
#include "runtime/reference_evaluator.hpp"
#include "storage/chunk_presence.hpp"
#include "storage/tensor_file.hpp"
#include "temp_dir.hpp"
#include "tra/program_builder.hpp"

namespace {

using namespace tra;
using tra::testing::at;
using tra::testing::from_rank0;
using tra::testing::rank_in_world;
using tra::testing::world_size;

std::string bytes_of(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A of 8 x 12 in 4 x 4 tiles (keys below [2, 3]); S keeps its first row of tiles and stands
// for A with the second row zero: sparse-derived, frontier [2, 3] although its keys' is [1, 3].
// Written twice: /S sparse in S.h5, /D dense in D.h5.
constexpr std::int64_t kRows = 8, kCols = 12, kTile = 4;
Program sparse_program(const std::string& dir) {
    ProgramBuilder b("sparse", DType::F64);
    InputSource arange;
    arange.generate = storage::GeneratorSpec{storage::GeneratorSpec::Kind::Arange, 1, 1, 0};
    b.add_input("A", Shape{kRows, kCols}, Shape{kTile, kTile}, DType::F64, arange, at("A"));
    b.add_filter("S", "A", "k0 == 0", at("S"));
    b.add_output("S", dir + "/S.h5", "/S", at("out S"));
    b.add_output("S", dir + "/D.h5", "/D", at("out D"));
    Program p = b.finish();
    Node& s = p.nodes.at(*p.find("S"));
    REQUIRE(s.keys.frontier(2) == Frontier{1, 3});
    s.sparse = true;
    s.frontier = Frontier{2, 3};
    p.outputs.at(0).sparse = true;
    return p;
}

// Checks S.h5 and D.h5 in `out`: the dense shape; S holds only its present tiles' chunks, D
// every chunk; both have A's values in the first row of tiles and zeros in the second.
void check_outputs(const std::string& out);

// Whether the tile of `file`:`dataset` at `key` holds A's values, or zeros where `zero`.
bool tile_is(const std::string& file, const std::string& dataset, const Key& key, bool zero) {
    const storage::DatasetReader r(file, dataset);
    const Tile t = r.read_tile(Shape{key[0] * kTile, key[1] * kTile}, Shape{kTile, kTile});
    for (std::int64_t i = 0; i < kTile; ++i)
        for (std::int64_t j = 0; j < kTile; ++j) {
            const std::int64_t row = key[0] * kTile + i, col = key[1] * kTile + j;
            const double want = zero ? 0.0 : static_cast<double>(1 + row * kCols + col);
            if (t.get(i * kTile + j) != want) return false;
        }
    return true;
}

void check_outputs(const std::string& out) {
    const std::string s = out + "/S.h5", d = out + "/D.h5";
    CHECK(storage::DatasetReader(s, "/S").info().shape == Shape{kRows, kCols});
    CHECK(storage::DatasetReader(s, "/S").info().chunk == Shape{kTile, kTile});
    CHECK(storage::allocated_tiles(s, "/S", Shape{kTile, kTile}) ==
          std::vector<Key>{{0, 0}, {0, 1}, {0, 2}});
    CHECK(storage::DatasetReader(d, "/D").info().shape == Shape{kRows, kCols});
    CHECK(storage::allocated_tiles(d, "/D", Shape{kTile, kTile}).size() == 6);
    for (std::int64_t r = 0; r < 2; ++r)
        for (std::int64_t c = 0; c < 3; ++c) {
            CHECK(tile_is(s, "/S", Key{r, c}, r == 1));
            CHECK(tile_is(d, "/D", Key{r, c}, r == 1));
        }
}

// Runs the first plan for `program` on every rank, its output files made and, after the run,
// committed by rank 0 (as `tra run` does).
void run_and_commit(const Program& program) {
    const bool root = rank_in_world() == 0;
    std::optional<runtime::OutputFiles> files;
    std::vector<std::string> paths;
    if (root) {
        files.emplace(program, true);
        files->create_datasets(program);
        paths = files->temp_paths(program);
    }
    runtime::ExecuteOptions options;
    for (std::size_t i = 0; i < program.outputs.size(); ++i)
        options.output_paths.push_back(from_rank0(root ? paths.at(i) : ""));
    const auto plans = optimizer::search_plans(program, world_size());
    REQUIRE(!plans.empty());
    runtime::execute(plans.front().plan, MPI_COMM_WORLD, options);
    if (root) files->commit();
}

}  // namespace

TEST_CASE("sparse and dense outputs of a sparse-derived relation, with every writer") {
    const int me = rank_in_world();
    const int sites = world_size();
    std::optional<tra::testing::TempDir> dir;
    if (me == 0) dir.emplace("mpi-sparse-outputs");
    const std::string root = from_rank0(me == 0 ? dir->path() : "");
    std::vector<std::string> writers{"turns"};
    if (TRA_PARALLEL_HDF5) writers = {"turns", "collective", "independent"};
    std::string first_s, first_d;
    for (const std::string& writer : writers) {
        CAPTURE(writer, sites);
        const std::string out = root + "/" + writer;
        if (me == 0) setenv("TRA_OUTPUT_WRITER", writer.c_str(), 1);
        run_and_commit(sparse_program(out));
        if (me != 0) continue;
        unsetenv("TRA_OUTPUT_WRITER");

        check_outputs(out);
        const std::string s = out + "/S.h5", d = out + "/D.h5";
        // The same bytes whichever writer wrote them.
        if (first_s.empty()) {
            first_s = bytes_of(s);
            first_d = bytes_of(d);
        } else {
            CHECK(bytes_of(s) == first_s);
            CHECK(bytes_of(d) == first_d);
        }
    }
}

TEST_CASE("sparse and dense outputs have the bytes of one process's, whatever the ranks") {
    // What every writer made above at this number of ranks, against one process that creates
    // the datasets the same way and writes every tile itself, in key order.
    const int me = rank_in_world();
    std::optional<tra::testing::TempDir> dir;
    if (me == 0) dir.emplace("mpi-sparse-bytes");
    const std::string root = from_rank0(me == 0 ? dir->path() : "");
    const Program program = sparse_program(root + "/run");
    run_and_commit(program);
    if (me != 0) return;

    runtime::ReferenceEvaluator evaluator(program);
    for (const Output& o : program.outputs) {
        const Node& node = program.node(o.node);
        const std::string solo = root + o.dataset + ".h5";  // "/S.h5" next to "run"
        runtime::create_relation_dataset(solo, o.dataset, node, o.sparse);
        const auto layout = runtime::output_layout(node);
        auto writer =
            storage::DatasetWriter::reopen(solo, o.dataset, node.type.dtype, layout.dataset_shape);
        for (const auto& [k, t] : evaluator.evaluate(o.node).tuples)
            writer.write_block(layout.origin(k), t);
        writer.close();
        CHECK(bytes_of(solo) == bytes_of(o.file));
    }
}

TEST_CASE("the reference evaluation writes sparse-derived outputs the same way") {
    if (rank_in_world() != 0) return;
    tra::testing::TempDir dir("mpi-sparse-reference");
    const std::string out = dir.path("reference");
    const Program program = sparse_program(out);
    runtime::OutputFiles files(program, true);
    runtime::ReferenceEvaluator evaluator(program);
    for (const Output& o : program.outputs) files.write(o, evaluator.evaluate(o.node));
    files.commit();
    check_outputs(out);
}
