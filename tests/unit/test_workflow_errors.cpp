// load_workflow: every kind of bad input, each reported at its exact FILE:LINE:COLUMN and field
// path with exit code 2.
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

TEST_CASE("workflow errors: malformed YAML", "[workflow][errors]") {
    WorkflowDir dir;
    const std::string text = "name: x\nprogram:\n  - C: {join: [A, B}\n";
    const std::string path = dir.write("bad.yaml", text);
    expect_error(path, loc(path, text, 3, "}"), "malformed YAML");
}

TEST_CASE("workflow errors: unreadable workflow file", "[workflow][errors]") {
    WorkflowDir dir;
    expect_error(dir.path("none.yaml"), "", "cannot read workflow file");
}

TEST_CASE("workflow errors: unknown relation", "[workflow][errors]") {
    WorkflowDir dir;
    const std::string text = kHeader + "  - C: {join: [A, X], on: [[1], [0]], kernel: matmul}\n";
    const std::string path = dir.write("bad.yaml", text);
    expect_error(path, loc(path, text, 6, "[A, X]") + ": program[0].C.join",
                 "unknown relation 'X'");
}

TEST_CASE("workflow errors: unknown relation in an output", "[workflow][errors]") {
    WorkflowDir dir;
    const std::string text =
        kHeader + "  - C: {transform: A, kernel: relu}\noutputs:\n  Q: {file: q.h5}\n";
    const std::string path = dir.write("bad.yaml", text);
    expect_error(path, loc(path, text, 8, "{file") + ": outputs.Q", "unknown relation 'Q'");
}

TEST_CASE("workflow errors: unknown kernel", "[workflow][errors]") {
    WorkflowDir dir;
    const std::string text = kHeader + "  - C: {join: [A, B], on: [[1], [0]], kernel: matmull}\n";
    const std::string path = dir.write("bad.yaml", text);
    expect_error(path, loc(path, text, 6, "matmull") + ": program[0].C.kernel",
                 "unknown kernel 'matmull'; known kernels: ");
    const std::string t2 = kHeader + "  - C: {transform: A, kernel: \"scale(x)\"}\n";
    const std::string p2 = dir.write("bad2.yaml", t2);
    expect_error(p2, loc(p2, t2, 6, "\"scale") + ": program[0].C.kernel", "'x' is not a number");
}

TEST_CASE("workflow errors: key positions out of range", "[workflow][errors]") {
    WorkflowDir dir;
    const std::string text = kHeader +
                             "  - AB: {join: [A, B], on: [[1], [0]], kernel: matmul}\n"
                             "  - C: {aggregate: AB, by: [0, 3], kernel: add}\n";
    const std::string path = dir.write("bad.yaml", text);
    expect_error(path, loc(path, text, 7, "[0, 3]") + ": program[1].C.by",
                 "key position 3 is out of range: AB has keys of 3 positions");
    const std::string t2 = kHeader + "  - C: {join: [A, B], on: [[2], [0]], kernel: matmul}\n";
    const std::string p2 = dir.write("bad2.yaml", t2);
    expect_error(p2, loc(p2, t2, 6, "[[2], [0]]") + ": program[0].C.on",
                 "key position 2 is out of range: A has keys of 2 positions");
    const std::string t3 = kHeader + "  - C: {join: [A, B], on: [[-1], [0]], kernel: matmul}\n";
    const std::string p3 = dir.write("bad3.yaml", t3);
    expect_error(p3, loc(p3, t3, 6, "-1") + ": program[0].C.on[0][0]", "non-negative");
}

TEST_CASE("workflow errors: join positions of different counts", "[workflow][errors]") {
    // Also with tiles chosen by tra, whose first pass over the steps (tiling classes) sees the
    // step before the program builder refuses it (the fuzzer found it reading past a list).
    WorkflowDir dir;
    for (const std::string tile : {"[4, 3]", "auto"}) {
        const std::string text =
            "name: bad\ninputs:\n"
            "  A: {shape: [8, 6], tile: " +
            tile +
            ", generate: {uniform: [-1, 1], seed: 1}}\n"
            "  B: {shape: [8, 4], tile: " +
            (tile == "auto" ? tile : "[4, 2]") +
            ", generate: {uniform: [-1, 1], seed: 2}}\n"
            "program:\n"
            "  - C: {join: [A, B], on: [[0, 1], [0]], kernel: matmul_tn}\n";
        const std::string path = dir.write("bad.yaml", text);
        INFO(text);
        expect_error(path, loc(path, text, 6, "[[0, 1], [0]]") + ": program[0].C.on",
                     "join positions differ in count: 2 on the left, 1 on the right");
    }
}

TEST_CASE("workflow errors: join sides of different dtypes", "[workflow][errors]") {
    WorkflowDir dir;
    const std::string text =
        "name: bad\n"
        "inputs:\n"
        "  A: {shape: [8, 6], tile: [4, 3], generate: {uniform: [-1, 1], seed: 1}}\n"
        "  B: {shape: [6, 4], tile: [3, 2], dtype: f32, generate: {uniform: [-1, 1], seed: 2}}\n"
        "program:\n"
        "  - C: {join: [A, B], on: [[1], [0]], kernel: matmul}\n";
    const std::string path = dir.write("bad.yaml", text);
    expect_error(path, loc(path, text, 6, "[A, B]") + ": program[0].C.join",
                 "type mismatch: A is f64 but B is f32");
}

TEST_CASE("workflow errors: kernel operand shapes do not fit", "[workflow][errors]") {
    WorkflowDir dir;
    const std::string text = kHeader + "  - C: {join: [A, A], on: [[1], [0]], kernel: matmul}\n";
    const std::string path = dir.write("bad.yaml", text);
    expect_error(path, loc(path, text, 6, "matmul") + ": program[0].C.kernel",
                 "inner extents differ");
    const std::string t2 = kHeader + "  - C: {aggregate: A, by: [0], kernel: sub}\n";
    const std::string p2 = dir.write("bad2.yaml", t2);
    expect_error(p2, loc(p2, t2, 6, "sub") + ": program[0].C.kernel", "cannot aggregate");
}

TEST_CASE("workflow errors: tile does not divide the shape", "[workflow][errors]") {
    WorkflowDir dir;
    const std::string text =
        "name: bad\n"
        "inputs:\n"
        "  A: {shape: [1000, 1000], tile: [100, 300], generate: {uniform: [-1, 1]}}\n";
    const std::string path = dir.write("bad.yaml", text);
    expect_error(path, loc(path, text, 3, "[100, 300]") + ": inputs.A.tile",
                 "dimension 1: shape 1000 is not divisible by tile 300; tile sizes that divide it: "
                 "100, 125, 200, 250");
}

TEST_CASE("workflow errors: missing HDF5 file and missing dataset", "[workflow][errors]") {
    WorkflowDir dir;
    write_h5(dir.path("have.h5"), "/X", DType::F64, Shape{4, 4});
    const std::string text =
        "name: bad\n"
        "inputs:\n"
        "  A: {shape: [4, 4], file: nope.h5}\n";
    const std::string path = dir.write("bad.yaml", text);
    expect_error(path, loc(path, text, 3, "nope.h5") + ": inputs.A.file", "nope.h5");
    const std::string t2 =
        "name: bad\n"
        "inputs:\n"
        "  A: {shape: [4, 4], file: have.h5, dataset: /Y}\n";
    const std::string p2 = dir.write("bad2.yaml", t2);
    expect_error(p2, loc(p2, t2, 3, "have.h5") + ": inputs.A.file", "/Y");
    // Without a dataset field the dataset is /NAME, here /A: missing too.
    const std::string t3 = "name: bad\ninputs:\n  A: {shape: [4, 4], file: have.h5}\n";
    const std::string p3 = dir.write("bad3.yaml", t3);
    expect_error(p3, loc(p3, t3, 3, "have.h5") + ": inputs.A.file", "/A");
    // With the check off, the loader does not open files.
    LoadOptions off;
    off.check_input_files = false;
    CHECK_NOTHROW(load_workflow(path, off));
}

TEST_CASE("workflow errors: dtype and shape differ from the HDF5 dataset", "[workflow][errors]") {
    WorkflowDir dir;
    write_h5(dir.path("x.h5"), "/X", DType::F32, Shape{4, 6});
    const std::string text =
        "name: bad\n"
        "inputs:\n"
        "  X: {shape: [4, 6], tile: [2, 3], file: x.h5}\n";
    const std::string path = dir.write("bad.yaml", text);
    expect_error(path, loc(path, text, 3, "x.h5") + ": inputs.X.file",
                 "dtype mismatch: the workflow says f64 but " + dir.path("x.h5") + ":/X holds f32");
    const std::string t2 =
        "name: bad\n"
        "inputs:\n"
        "  X: {shape: [6, 4], tile: [2, 2], dtype: f32, file: x.h5}\n";
    const std::string p2 = dir.write("bad2.yaml", t2);
    expect_error(
        p2, loc(p2, t2, 3, "[6, 4]") + ": inputs.X.shape",
        "shape mismatch: the workflow says [6, 4] but " + dir.path("x.h5") + ":/X is [4, 6]");
    const std::string t3 =
        "name: ok\ninputs:\n  X: {shape: [4, 6], tile: [2, 3], dtype: f32, file: x.h5}\n";
    CHECK_NOTHROW(load_workflow(dir.write("ok.yaml", t3)));
}

TEST_CASE("workflow errors: duplicate step names", "[workflow][errors]") {
    WorkflowDir dir;
    const std::string text = kHeader +
                             "  - C: {transform: A, kernel: relu}\n"
                             "  - C: {transform: B, kernel: relu}\n";
    const std::string path = dir.write("bad.yaml", text);
    expect_error(path, loc(path, text, 7, "{") + ": program[1].C", "duplicate name 'C'");
    const std::string t2 = kHeader + "  - B: {transform: A, kernel: relu}\n";
    const std::string p2 = dir.write("bad2.yaml", t2);
    expect_error(p2, loc(p2, t2, 6, "{") + ": program[0].B", "duplicate name 'B'");
}

TEST_CASE("workflow errors: duplicate keys in a map", "[workflow][errors]") {
    WorkflowDir dir;
    const std::string text = kHeader.substr(0, kHeader.find("program:")) +
                             "  A: {shape: [4], generate: {constant: 1}}\n";
    const std::string path = dir.write("bad.yaml", text);
    expect_error(path, loc(path, text, 5, "A:"), "duplicate key 'A'");
    const std::string t2 = kHeader + "  - C: {transform: A, kernel: relu, kernel: relu}\n";
    const std::string p2 = dir.write("bad2.yaml", t2);
    const auto line = [&] {
        std::istringstream in(t2);
        std::string l;
        for (int i = 0; i < 6; ++i) std::getline(in, l);
        return l;
    }();
    const auto second = line.rfind("kernel");
    expect_error(p2, p2 + ":6:" + std::to_string(second + 1), "duplicate key 'kernel'");
    const std::string t3 = "name: a\nname: b\n";
    const std::string p3 = dir.write("bad3.yaml", t3);
    expect_error(p3, p3 + ":2:1", "duplicate key 'name'");
}

TEST_CASE("workflow errors: duplicate keys name their field path", "[workflow][errors]") {
    // docs/workflow-format.md: every problem is reported as FILE:LINE:COLUMN: FIELD: message.
    WorkflowDir dir;
    const std::string text = kHeader.substr(0, kHeader.find("program:")) +
                             "  A: {shape: [4], generate: {constant: 1}}\n";
    const std::string path = dir.write("bad.yaml", text);
    expect_error(path, loc(path, text, 5, "A:") + ": inputs.A: duplicate key 'A'", "duplicate key");
}

TEST_CASE("workflow errors: a step naming a later step", "[workflow][errors]") {
    WorkflowDir dir;
    const std::string text = kHeader +
                             "  - C: {transform: D, kernel: relu}\n"
                             "  - D: {transform: A, kernel: relu}\n";
    const std::string path = dir.write("bad.yaml", text);
    expect_error(path, loc(path, text, 6, "D,") + ": program[0].C.transform",
                 "'D' is defined later (line 7); a step may use only inputs and earlier steps");
    // A step naming itself.
    const std::string t2 = kHeader + "  - C: {rekey: C, key: \"(k1, k0)\"}\n";
    const std::string p2 = dir.write("bad2.yaml", t2);
    expect_error(p2, loc(p2, t2, 6, "C,") + ": program[0].C.rekey", "'C' is defined later");
    // In a join's list and an einsum's inputs.
    const std::string t3 = kHeader +
                           "  - C: {einsum: \"ik,kj->ij\", inputs: [A, D]}\n"
                           "  - D: {transform: B, kernel: relu}\n";
    const std::string p3 = dir.write("bad3.yaml", t3);
    expect_error(p3, loc(p3, t3, 6, "D]") + ": program[0].C.inputs[1]", "'D' is defined later");
}

TEST_CASE("workflow errors: unknown fields", "[workflow][errors]") {
    WorkflowDir dir;
    const std::string text = kHeader + "  - C: {transform: A, kernel: relu, extra: 1}\n";
    const std::string path = dir.write("bad.yaml", text);
    expect_error(path, loc(path, text, 6, "extra") + ": program[0].C",
                 "unknown field 'extra' (expected one of: kernel, transform)");
    const std::string t2 = kHeader + "  - C: {transform: A, kernel: relu}\noutptus: {}\n";
    const std::string p2 = dir.write("bad2.yaml", t2);
    expect_error(p2, p2 + ":7:1", "unknown field 'outptus'");
    const std::string t3 =
        "name: bad\ninputs:\n  A: {shape: [4], tiles: [2], generate: {constant: 1}}\n";
    const std::string p3 = dir.write("bad3.yaml", t3);
    expect_error(p3, loc(p3, t3, 3, "tiles") + ": inputs.A", "unknown field 'tiles'");
    const std::string t4 =
        "name: bad\ninputs:\n  A: {shape: [4], generate: {constant: 1, sed: 3}}\n";
    const std::string p4 = dir.write("bad4.yaml", t4);
    expect_error(p4, loc(p4, t4, 3, "sed") + ": inputs.A.generate", "unknown field 'sed'");
}

TEST_CASE("workflow errors: a step with two operators, or none", "[workflow][errors]") {
    WorkflowDir dir;
    const std::string text = kHeader + "  - C: {transform: A, rekey: A, kernel: relu}\n";
    const std::string path = dir.write("bad.yaml", text);
    expect_error(path, loc(path, text, 6, "{") + ": program[0].C",
                 "a step has one operator, but this one has transform and rekey");
    const std::string t2 = kHeader + "  - C: {kernel: relu}\n";
    const std::string p2 = dir.write("bad2.yaml", t2);
    expect_error(p2, loc(p2, t2, 6, "{") + ": program[0].C", "no operator");
    const std::string t3 =
        kHeader + "  - C: {transform: A, kernel: relu}\n    D: {transform: A, kernel: relu}\n";
    const std::string p3 = dir.write("bad3.yaml", t3);
    expect_error(p3, loc(p3, t3, 6, "C:") + ": program[0]", "each step is a map with one entry");
}

TEST_CASE("workflow errors: rekey mapping two keys to one", "[workflow][errors]") {
    WorkflowDir dir;
    const std::string text = kHeader + "  - C: {rekey: A, key: \"(i, j) -> (i)\"}\n";
    const std::string path = dir.write("bad.yaml", text);
    expect_error(path, loc(path, text, 6, "\"(i") + ": program[0].C.key",
                 "rekey maps keys (0, 0) and (0, 1) to the same key (0)");
    const std::string t2 = kHeader + "  - C: {rekey: A, key: \"(i, j) -> (j, i +)\"}\n";
    const std::string p2 = dir.write("bad2.yaml", t2);
    expect_error(p2, loc(p2, t2, 6, "\"(i") + ": program[0].C.key", "column");
}

TEST_CASE("workflow errors: an output with holes", "[workflow][errors]") {
    WorkflowDir dir;
    const std::string text = kHeader +
                             "  - F: {filter: A, where: \"k0 == k1\"}\n"
                             "outputs:\n"
                             "  F: {file: f.h5}\n";
    const std::string path = dir.write("bad.yaml", text);
    expect_error(path, loc(path, text, 8, "{") + ": outputs.F",
                 "F has holes: 2 of 4 tuples below its frontier [2, 2]");
    const std::string t2 = kHeader +
                           "  - C: {transform: A, kernel: relu}\n"
                           "outputs:\n"
                           "  C: {file: o.h5, dataset: /X}\n"
                           "  A: {file: o.h5, dataset: /X}\n";
    const std::string p2 = dir.write("bad2.yaml", t2);
    expect_error(p2, loc(p2, t2, 9, "/X") + ": outputs.A.dataset", "two outputs write");
}

TEST_CASE("workflow errors: einsum", "[workflow][errors]") {
    WorkflowDir dir;
    const std::string text = kHeader + "  - E: {einsum: \"ij->ii\", inputs: [A]}\n";
    const std::string path = dir.write("bad.yaml", text);
    expect_error(path, loc(path, text, 6, "\"ij") + ": program[0].E.einsum",
                 "label 'i' is repeated in the output");
    const std::string t2 = kHeader + "  - E: {einsum: \"ij,jk->iz\", inputs: [A, B]}\n";
    const std::string p2 = dir.write("bad2.yaml", t2);
    expect_error(p2, loc(p2, t2, 6, "\"ij") + ": program[0].E.einsum",
                 "output label 'z' appears in no operand");
    // A [8, 6] in [4, 3]; B [6, 4] in [3, 2]: 'k' is 2 x 3 in A, 2 x 2 in B... use A with itself.
    const std::string t3 = kHeader + "  - E: {einsum: \"ik,kj->ij\", inputs: [A, A]}\n";
    const std::string p3 = dir.write("bad3.yaml", t3);
    expect_error(p3, loc(p3, t3, 6, "[A, A]") + ": program[0].E.inputs",
                 "label 'k' is tiled as 2 x 3 in A but as 2 x 4 in A; it spans 6 elements in "
                 "one and 8 in the other, and must span the same extent");
    const std::string t4 = kHeader + "  - E: {einsum: \"ik,kj->ij\", inputs: [A, B], agg: sub}\n";
    const std::string p4 = dir.write("bad4.yaml", t4);
    expect_error(p4, loc(p4, t4, 6, "sub") + ": program[0].E.agg", "agg op 'sub'");
    const std::string t5 =
        kHeader + "  - E: {einsum: \"ik,kj->ij\", inputs: [A, B], join: matmul}\n";
    const std::string p5 = dir.write("bad5.yaml", t5);
    expect_error(p5, loc(p5, t5, 6, "matmul") + ": program[0].E.join", "join op 'matmul'");
    const std::string t6 = kHeader + "  - E: {einsum: \"ik,kj->ij\", inputs: [A]}\n";
    const std::string p6 = dir.write("bad6.yaml", t6);
    expect_error(p6, loc(p6, t6, 6, "[A]") + ": program[0].E.inputs",
                 "has 2 operand(s) but inputs names 1");
}

TEST_CASE("workflow errors: bad values", "[workflow][errors]") {
    WorkflowDir dir;
    struct Case {
        std::string line, needle, field, what;
    };
    const std::vector<Case> cases = {
        {"  - C: {tile: A, dim: 0, size: 3}", "3}", "program[0].C.size",
         "does not divide the tile extent 4"},
        {"  - C: {tile: A, dim: -1, size: 1}", "-1", "program[0].C.dim", "dim is non-negative"},
        {"  - C: {tile: A, dim: x, size: 1}", "x,", "program[0].C.dim",
         "expected an integer, got 'x'"},
        {"  - C: {concat: A, key_dim: 2, array_dim: 0}", "2,", "program[0].C.key_dim",
         "key_dim 2 is out of range"},
        {"  - C: {filter: A, where: \"k0 ==\"}", "\"k0", "program[0].C.where", ""},
        {"  - C: {transform: A, kernel: softmax_rows}", "softmax_rows", "program[0].C.kernel",
         "whole rows"},
        {"  - 9C: {transform: A, kernel: relu}", "{", "program[0].9C", "is not a valid name"},
        {"  - C: {join: [A], on: [[1], [0]], kernel: matmul}", "[A]", "program[0].C.join",
         "join takes two relations"},
    };
    int n = 0;
    for (const Case& c : cases) {
        const std::string text = kHeader + c.line + "\n";
        const std::string path = dir.write("bad" + std::to_string(n++) + ".yaml", text);
        expect_error(path, loc(path, text, 6, c.needle) + ": " + c.field, c.what);
    }
    const std::string t = "name: bad\ndtype: f16\n";
    const std::string p = dir.write("dtype.yaml", t);
    expect_error(p, p + ":2:8: dtype", "unknown dtype 'f16'");
    const std::string t2 = "name: bad\ninputs:\n  A: {shape: [4], generate: {uniform: [1, -1]}}\n";
    const std::string p2 = dir.write("range.yaml", t2);
    expect_error(p2, loc(p2, t2, 3, "[1, -1]") + ": inputs.A.generate.uniform", "lo > hi");
    const std::string t3 = "inputs: {}\n";
    const std::string p3 = dir.write("noname.yaml", t3);
    expect_error(p3, p3, "missing field 'name'");
}
