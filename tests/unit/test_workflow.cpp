// load_workflow: a full valid workflow, path resolution and the optional sites field. Bad input:
// test_workflow_errors.cpp.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "storage/tensor_file.hpp"
#include "workflow/workflow_loader.hpp"
#include "workflow_fixtures.hpp"

using namespace tra;
using namespace tra::testing;
using workflow::load_workflow;
using workflow::LoadOptions;
namespace fs = std::filesystem;

TEST_CASE("workflow: a valid workflow with every operator", "[workflow]") {
    WorkflowDir dir;
    write_h5(dir.path("data/w.h5"), "/W", DType::F64, Shape{8, 8});
    const std::string text =
        "name: every-op\n"
        "dtype: f64\n"
        "inputs:\n"
        "  A: {shape: [8, 6], tile: [4, 3], generate: {uniform: [-1, 1], seed: 1}}\n"
        "  B: {shape: [6, 4], tile: [3, 2], generate: {integers: [-2, 2], seed: 7}}\n"
        "  W: {shape: [8, 8], tile: [4, 4], file: data/w.h5, dataset: /W}\n"
        "  V: {shape: [8], tile: [4], dtype: f32, generate: {constant: 2}}\n"
        "program:\n"
        "  - AB: {join: [A, B], on: [[1], [0]], kernel: matmul}\n"
        "  - C:  {aggregate: AB, by: [0, 2], kernel: add}\n"
        "  - D:  {einsum: \"ik,kj->ij\", inputs: [A, B]}\n"
        "  - E:  {rekey: D, key: \"(i, j) -> (j, i)\"}\n"
        "  - F:  {filter: W, where: \"k0 == k1\"}\n"
        "  - G:  {transform: F, kernel: \"scale(0.5)\"}\n"
        "  - H:  {tile: D, dim: 1, size: 1}\n"
        "  - I:  {concat: H, key_dim: 2, array_dim: 1}\n"
        "  - M:  {einsum: \"ik,kj->ij\", inputs: [A, B], join: add, agg: min}\n"
        "  - N:  {transform: W, kernel: {name: einsum, spec: \"ij->ji\"}}\n"
        "outputs:\n"
        "  C: {file: out/C.h5, dataset: /C}\n"
        "  I: {file: out/C.h5}\n"
        "  E: {file: out/E.h5}\n";
    const std::string path = dir.write("wf/../every.yaml", text);
    Program p = load_workflow(path);
    CHECK(p.name == "every-op");
    CHECK(p.dtype == DType::F64);
    auto node = [&](const std::string& n) -> const Node& { return p.node(p.find(n).value()); };
    CHECK(operator_name(node("AB").op) == "join");
    CHECK(node("AB").type.key_arity == 3);
    CHECK(node("C").frontier == Frontier{2, 2});
    CHECK(node("C").type.bound == Shape{4, 2});
    CHECK(node("D").lowered_from == "D");
    CHECK(operator_name(node("D.join1").op) == "join");
    CHECK(node("E").type.bound == Shape{4, 2});
    CHECK(node("F").tuples() == 2);
    CHECK(std::get<TransformOp>(node("G").op).kernel.str() == "scale(0.5)");
    CHECK(node("H").frontier == Frontier{2, 2, 2});
    CHECK(node("I").type == node("D").type);
    CHECK(std::get<AggregateOp>(node("M").op).kernel.name() == "min");
    CHECK(node("N").type.bound == Shape{4, 4});
    CHECK(node("V").type.dtype == DType::F32);
    const auto& vs = std::get<InputOp>(node("V").op).source;
    REQUIRE(vs.generate);
    CHECK(vs.generate->kind == storage::GeneratorSpec::Kind::Constant);
    CHECK(vs.generate->lo == 2);
    const auto& bs = std::get<InputOp>(node("B").op).source;
    CHECK(bs.generate->kind == storage::GeneratorSpec::Kind::Integers);
    CHECK(bs.generate->seed == 7);
    // Needed: C, I, E and what they use; F, G, M, N, V are unused.
    CHECK(node("A").needed);
    CHECK(node("D.join1").needed);
    CHECK_FALSE(node("F").needed);
    CHECK_FALSE(node("M").needed);
    CHECK_FALSE(node("V").needed);
    CHECK_FALSE(node("W").needed);
    REQUIRE(p.outputs.size() == 3);
    CHECK(p.outputs[0].dataset == "/C");
    CHECK(p.outputs[1].dataset == "/I");
    CHECK(p.outputs[1].file == p.outputs[0].file);
    // Locations of nodes come from the file.
    CHECK(node("C").where.file == path);
    CHECK(node("C").where.line == 10);
}

TEST_CASE(
    "workflow: relative paths resolve against the workflow folder; --out-dir moves outputs only",
    "[workflow][paths]") {
    WorkflowDir dir;
    write_h5(dir.path("wf/data/w.h5"), "/W", DType::F64, Shape{4, 4});
    const std::string text =
        "name: paths\n"
        "inputs:\n"
        "  W: {shape: [4, 4], file: data/w.h5, dataset: /W}\n"
        "  G: {shape: [4], generate: {arange: [0, 1]}}\n"
        "  K: {shape: [4], generate: {arange: [0, 1]}, file: gen/k.h5, dataset: /kk}\n"
        "  Z: {shape: [4], file: /abs/z.h5}\n"
        "outputs:\n"
        "  W: {file: out/w.h5}\n"
        "  G: {file: /abs/out/g.h5, dataset: /grp/G}\n";
    const std::string path = dir.write("wf/paths.yaml", text);
    const std::string wf = dir.path("wf");
    LoadOptions no_check;
    no_check.check_input_files = false;  // Z does not exist
    Program p = load_workflow(path, no_check);
    auto src = [&](const std::string& n) {
        return std::get<InputOp>(p.node(*p.find(n)).op).source;
    };
    CHECK(src("W").file == wf + "/data/w.h5");
    CHECK(src("G").file == wf + "/G.h5");
    CHECK(src("G").dataset == "/G");
    CHECK(src("K").file == wf + "/gen/k.h5");
    CHECK(src("K").dataset == "/kk");
    CHECK(src("Z").file == "/abs/z.h5");
    CHECK(p.outputs[0].file == wf + "/out/w.h5");
    CHECK(p.outputs[0].dataset == "/W");
    CHECK(p.outputs[1].file == "/abs/out/g.h5");
    CHECK(p.outputs[1].dataset == "/grp/G");

    LoadOptions moved = no_check;
    moved.output_dir = dir.path("elsewhere");
    Program q = load_workflow(path, moved);
    auto qsrc = [&](const std::string& n) {
        return std::get<InputOp>(q.node(*q.find(n)).op).source;
    };
    CHECK(qsrc("W").file == wf + "/data/w.h5");           // inputs stay
    CHECK(qsrc("G").file == dir.path("elsewhere/G.h5"));  // generated files move
    CHECK(qsrc("K").file == dir.path("elsewhere/gen/k.h5"));
    CHECK(q.outputs[0].file == dir.path("elsewhere/out/w.h5"));
    CHECK(q.outputs[1].file == "/abs/out/g.h5");

    // From the workflow's own folder with a bare file name: "./data/w.h5" semantics.
    const fs::path cwd = fs::current_path();
    fs::current_path(wf);
    Program r = load_workflow("paths.yaml", no_check);
    fs::current_path(cwd);
    CHECK(std::get<InputOp>(r.node(*r.find("W")).op).source.file == "data/w.h5");
    CHECK(r.outputs[0].file == "out/w.h5");
}

TEST_CASE("workflow sites: optional, positive", "[workflow]") {
    WorkflowDir dir;
    const std::string ok = dir.write(
        "ok.yaml", "name: s\nsites: 4\ninputs:\n  A: {shape: [2], generate: {constant: 1}}\n");
    CHECK(load_workflow(ok).sites == 4);
    const std::string none = dir.write("none.yaml", "name: s\n");
    CHECK_FALSE(load_workflow(none).sites.has_value());
    const std::string bad = dir.write("bad.yaml", "name: s\nsites: 0\n");
    CHECK_THROWS_WITH(load_workflow(bad),
                      Catch::Contains("bad.yaml:2:8: sites: sites must be at least 1"));
}
