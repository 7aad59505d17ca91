// The tuple limit (--max-tuples): a relation with more tiles than the limit is refused with an
// error naming it, before its keys are enumerated where the count is known up front, so no
// workflow makes tra allocate without bound.
#include <catch2/catch.hpp>
#include <string>

#include "core/error.hpp"
#include "workflow/workflow_loader.hpp"
#include "workflow_fixtures.hpp"

using namespace tra;
using namespace tra::testing;

namespace {

std::string one_input(const std::string& shape, const std::string& tile) {
    return "name: big\ninputs:\n  A: {shape: " + shape + ", tile: " + tile +
           ", generate: {uniform: [0, 1], seed: 1}}\nprogram:\n  - B: {transform: A, kernel: "
           "relu}\noutputs:\n  B: {file: b.h5}\n";
}

workflow::LoadOptions limited(std::int64_t max_tuples) {
    workflow::LoadOptions o;
    o.max_tuples = max_tuples;
    return o;
}

}  // namespace

TEST_CASE("tuple limit: an input with more tiles than the limit, with coarser tiles suggested",
          "[workflow][limits]") {
    WorkflowDir dir;
    // 1e8 tiles: refused at once (enumerating them took gigabytes), with a tiling under 1e7.
    const std::string text = one_input("[100000, 100000]", "[10, 10]");
    const std::string path = dir.write("big.yaml", text);
    expect_error(path, loc(path, text, 3, "[10, 10]") + ": inputs.A.tile",
                 "A has more tuples (tiles) (100000000) than the limit of 10000000 "
                 "(--max-tuples or TRA_MAX_TUPLES); use larger tiles, e.g. tile: [40, 40] "
                 "(6250000 tiles)");
    // The limit is the caller's: 1e8 tiles under a limit of 1e6.
    expect_error(path, loc(path, text, 3, "[10, 10]") + ": inputs.A.tile",
                 "e.g. tile: [100, 100] (1000000 tiles)", limited(1'000'000));
}

TEST_CASE("tuple limit: a tile count past 64 bits is refused, not wrapped", "[workflow][limits]") {
    WorkflowDir dir;
    const std::string text = one_input("[4294967296, 4294967296]", "[1, 1]");
    const std::string path = dir.write("huge.yaml", text);
    expect_error(path, loc(path, text, 3, "[1, 1]") + ": inputs.A.tile",
                 "A has more tuples (tiles) than the limit of 10000000");
    const std::string bytes = one_input("[4294967296, 4294967296]", "[4294967296, 4294967296]");
    const std::string path2 = dir.write("tile.yaml", bytes);
    expect_error(path2,
                 loc(path2, bytes, 3, "[4294967296, 4294967296], generate") + ": inputs.A.tile",
                 "has more bytes than 64 bits count");
}

TEST_CASE(
    "tuple limit: a join of dense relations that makes more tuples than its inputs is "
    "counted before its keys are made",
    "[workflow][limits]") {
    WorkflowDir dir;
    // An outer product of two 100-tile relations: 10000 tuples, past a limit of 5000.
    const std::string text =
        "name: outer\ninputs:\n"
        "  A: {shape: [100], tile: [1], generate: {uniform: [0, 1], seed: 1}}\n"
        "  B: {shape: [100], tile: [1], generate: {uniform: [0, 1], seed: 2}}\n"
        "program:\n  - C: {join: [A, B], on: [[], []], kernel: mul}\n"
        "outputs:\n  C: {file: c.h5}\n";
    const std::string path = dir.write("outer.yaml", text);
    expect_error(path, loc(path, text, 6, "[A, B]") + ": program[0].C.join",
                 "C has more tuples (tiles) (10000) than the limit of 5000", limited(5000));
    REQUIRE_NOTHROW(workflow::load_workflow(path, limited(10000)));
}

TEST_CASE("tuple limit: cutting tiles counts the pieces before making them", "[workflow][limits]") {
    WorkflowDir dir;
    const std::string text =
        "name: cut\ninputs:\n"
        "  A: {shape: [100, 1000], tile: [1, 1000], generate: {uniform: [0, 1], seed: 1}}\n"
        "program:\n  - T: {tile: A, dim: 1, size: 1}\noutputs:\n  T: {file: t.h5}\n";
    const std::string path = dir.write("cut.yaml", text);
    expect_error(path, loc(path, text, 5, "1}") + ": program[0].T.size",
                 "T has more tuples (tiles) (100000) than the limit of 50000", limited(50000));
}
