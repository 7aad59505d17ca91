// Plan files: the content hash, placement text, write -> load round trips (same nodes and
// identical costs), a valid hand edit, and invalid edits, each refused at the plan file's
// line:column naming the node, with exit code 2.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/content_hash.hpp"
#include "core/error.hpp"
#include "ia/initial_plan.hpp"
#include "ia/plan_costs.hpp"
#include "optimizer/search.hpp"
#include "temp_dir.hpp"
#include "workflow/placement_text.hpp"
#include "workflow/plan_file.hpp"

using namespace tra;
using ia::Placement;
using workflow::load_plan_file;
using workflow::parse_placement;

namespace {

struct TempDir : testing::TempDir {
    TempDir() : testing::TempDir("plan_file") {}
};

// C = A B with A, B 8x8 in 2x2 tiles (generated: no HDF5 files needed).
const std::string kMatmul =
    "name: mm\n"
    "inputs:\n"
    "  A: {shape: [8, 8], tile: [2, 2], generate: {uniform: [-1, 1], seed: 1}}\n"
    "  B: {shape: [8, 8], tile: [2, 2], generate: {uniform: [-1, 1], seed: 2}}\n"
    "program:\n"
    "  - AB: {join: [A, B], on: [[1], [0]], kernel: matmul}\n"
    "  - C:  {aggregate: AB, by: [0, 2], kernel: add}\n"
    "outputs:\n"
    "  C: {file: out/C.h5}\n";

// Filter, rekey (Unknown placement), transform, tile (arity 2), concat.
const std::string kMaps =
    "name: maps\n"
    "inputs:\n"
    "  X: {shape: [12, 12], tile: [6, 6], generate: {uniform: [-1, 1], seed: 3}}\n"
    "  Y: {shape: [12, 12], tile: [6, 6], generate: {uniform: [-1, 1], seed: 4}}\n"
    "program:\n"
    "  - S:    {join: [X, Y], on: [[0, 1], [0, 1]], kernel: add}\n"
    "  - F:    {filter: S, where: \"k0 >= 0\"}\n"
    "  - R:    {rekey: F, key: \"(i, j) -> (j, i)\"}\n"
    "  - Xt:   {transform: R, kernel: transpose}\n"
    "  - T:    {tile: X, dim: 1, size: 3}\n"
    "  - Back: {concat: T, key_dim: 2, array_dim: 1}\n"
    "  - Z:    {join: [Xt, Back], on: [[0, 1], [0, 1]], kernel: add}\n"
    "outputs:\n"
    "  Z: {file: out/Z.h5}\n";

std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// `text` with `from` replaced by `to` exactly once.
std::string edit(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    REQUIRE(text.find(from, at + 1) == std::string::npos);
    return text.replace(at, from.size(), to);
}

// "FILE:LINE:COL" of the first line starting with `line_start`, at `offset` characters past
// the start of `needle` in it.
std::string loc(const std::string& file, const std::string& text, const std::string& line_start,
                const std::string& needle, std::size_t offset = 0) {
    std::istringstream in(text);
    std::string l;
    for (int line = 1; std::getline(in, l); ++line)
        if (l.rfind(line_start, 0) == 0) {
            const auto col = l.find(needle);
            REQUIRE(col != std::string::npos);
            return file + ":" + std::to_string(line) + ":" + std::to_string(col + offset + 1);
        }
    FAIL("no line starts with " << line_start);
    return "";
}

void expect_error(const std::string& plan, const std::string& where, const std::string& what) {
    try {
        load_plan_file(plan);
        FAIL("loaded without an error");
    } catch (const Error& e) {
        CHECK_THAT(e.what(), Catch::StartsWith(where + ":"));
        CHECK_THAT(e.what(), Catch::Contains(what));
        CHECK(e.exit_code() == 2);
    }
}

void check_same(const ia::Plan& a, const ia::Plan& b) {
    REQUIRE(a.size() == b.size());
    CHECK(a.sites() == b.sites());
    for (std::size_t i = 0; i < a.size(); ++i) {
        const ia::IaNode &x = a.node(i), &y = b.node(i);
        INFO("node #" << i << ": " << x.str() << " vs " << y.str());
        CHECK(x.op == y.op);
        CHECK(a.origin(i).name == b.origin(i).name);
        CHECK(x.inputs == y.inputs);
        CHECK(x.shuffle_dims == y.shuffle_dims);
        CHECK(x.map_arity == y.map_arity);
        CHECK(x.placement == y.placement);
        CHECK(x.rules == y.rules);
        CHECK(x.logical.has_value() == y.logical.has_value());
    }
    CHECK(a.results() == b.results());
    ia::Plan ca = a, cb = b;
    const ia::PlanTotals ta = ia::annotate_costs(ca), tb = ia::annotate_costs(cb);
    CHECK(ta.payload_bytes == tb.payload_bytes);
    CHECK(ta.overhead_bytes == tb.overhead_bytes);
    CHECK(ta.paper_floats == tb.paper_floats);
    CHECK(ta.flops == tb.flops);
    CHECK(ta.peak_per_site == tb.peak_per_site);
}

// A matmul plan file at S = 2 in `dir`: returns the plan file's path.
std::string matmul_plan(const TempDir& dir) {
    const std::string wf = dir.write("mm.yaml", kMatmul);
    workflow::LoadOptions opt;
    const Program program = workflow::load_workflow(wf, opt);
    const std::string plan = dir / "plan.yaml";
    // Relative to the current directory, as a user would type it: written relative to the plan.
    workflow::save_plan_file(plan, ia::compile_initial(program, 2),
                             std::filesystem::relative(wf).string(), "initial");
    return plan;
}

}  // namespace

TEST_CASE("content hash: FNV-1a 64 test vectors and files", "[plan_file]") {
    CHECK(fnv1a64("") == 0xcbf29ce484222325ULL);
    CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cULL);
    CHECK(fnv1a64("foobar") == 0x85944171f73967e8ULL);
    CHECK(fnv1a64("bar", fnv1a64("foo")) == fnv1a64("foobar"));  // hashing in pieces
    CHECK(content_hash("") == "fnv1a64:cbf29ce484222325");
    TempDir dir;
    CHECK(file_content_hash(dir.write("f", "foobar")) == "fnv1a64:85944171f73967e8");
    // A file of several read pieces (1 MiB each) hashes as its bytes in one piece.
    std::string big(3 * (1 << 20) + 7, '\0');
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7 % 251);
    CHECK(file_content_hash(dir.write("big", big)) == content_hash(big));
    CHECK_THROWS_AS(file_content_hash(dir / "missing"), Error);
}

TEST_CASE("placement text: parse_placement inverts Placement::str", "[plan_file]") {
    using R = Placement::Replicate;
    for (const Placement& p :
         {Placement::all(), Placement::unknown(), Placement::part({}), Placement::part({1}),
          Placement::part({2, 0, 1}), Placement::grid(0, 1, 2, 3),
          Placement::grid(1, 0, 3, 1, R::AlongRow), Placement::grid(2, 3, 4, 4, R::AlongColumn),
          Placement::layered_grid(0, 2, 1, 2, 2, 4),
          Placement::layered_grid(0, 1, 1, 1, 2, 3, R::AlongRow)}) {
        INFO(p.str());
        auto back = parse_placement(p.str());
        REQUIRE(back);
        CHECK(*back == p);
    }
    CHECK(*parse_placement(" Part[ 0 ,2 ] ") == Placement::part({0, 2}));
    CHECK(*parse_placement("Grid[0 x 1 on 2 x 3,replicated along rows]") ==
          Placement::grid(0, 1, 2, 3, R::AlongRow));
    // One layer is the 2-D grid, whichever position was named for it.
    CHECK(*parse_placement("Grid[0 x 1 x 5 on 2x3x1]") == Placement::grid(0, 1, 2, 3));
    for (const char* bad :
         {"", "all", "Part", "Part[0", "Part[0,]", "Part[-1]", "Part[a]", "Grid[0 x 1]",
          "Grid[0 x 1 on 0x2]", "Grid[0 x 1 on 2x3, replicated]", "Grid[0 x 1 x 2 on 2x3]",
          "Grid[0 x 1 on 2x3x2]", "Grid[0 x 1 x 2 on 2x3x0]", "Grid[0 x 1on 2x3]",
          "Part[99999999999999999999999]", "Part[0] All"})
        CHECK_FALSE(parse_placement(bad));
}

TEST_CASE("plan file: the written text", "[plan_file]") {
    TempDir dir;
    const std::string text = read(matmul_plan(dir));
    CHECK_THAT(text, Catch::Contains("\nformat: tra-plan/1\n"));
    CHECK_THAT(text, Catch::Contains("\nname: \"initial\"\nsites: 2\n"));
    CHECK_THAT(text, Catch::Contains("  path: \"mm.yaml\"\n"));
    CHECK_THAT(text, Catch::Contains("  hash: \"" + file_content_hash(dir / "mm.yaml") + "\"\n"));
    CHECK_THAT(text,
               Catch::Contains("  - {id: 4, op: shuffle, origin: AB, inputs: [3], dims: [0, 2], "
                               "placement: \"Part[0, 2]\", rules: [\"compile\"]}  # moves 1024 B"));
    CHECK_THAT(text,
               Catch::Contains(
                   "  - {id: 3, op: local_join, origin: AB, inputs: [2, 1], placement: "
                   "\"Part[1]\", rules: [\"compile\"], does: \"join on [1]=[0] kernel matmul\"}"));
}

TEST_CASE("plan file: round trips of compiled and searched plans", "[plan_file]") {
    TempDir dir;
    for (const auto& [name, text] : {std::pair{"mm", kMatmul}, std::pair{"maps", kMaps}}) {
        const std::string wf = dir.write(std::string(name) + "/wf.yaml", text);
        const Program program = workflow::load_workflow(wf);
        for (int S : {1, 2, 3, 4}) {
            std::vector<std::pair<std::string, ia::Plan>> plans;
            plans.emplace_back("initial", ia::compile_initial(program, S));
            optimizer::SearchOptions search;
            search.top_k = 4;
            for (auto& r : optimizer::search_plans(program, S, search))
                plans.emplace_back(r.name, std::move(r.plan));
            if (std::string(name) == "mm") {  // a grid plan (op `grid`) may rank below top 4
                search.pins["AB"] = "grid";
                search.top_k = 1;
                for (auto& r : optimizer::search_plans(program, S, search))
                    plans.emplace_back(r.name, std::move(r.plan));
            }
            for (const auto& [plan_name, plan] : plans) {
                INFO(name << " S=" << S << " plan " << plan_name);
                // The plan file in another folder: a workflow given relative to the current
                // directory is written relative to the plan's folder; an absolute one as is.
                const std::string path = dir / "plans/p.yaml";
                std::filesystem::create_directories(dir / "plans");
                const bool relative = S % 2 == 0;
                workflow::save_plan_file(
                    path, plan, relative ? std::filesystem::relative(wf).string() : wf, plan_name);
                CHECK_THAT(read(path),
                           Catch::Contains(
                               "path: \"" +
                               (relative ? "../" + std::string(name) + "/wf.yaml" : wf) + "\""));
                workflow::LoadedPlan loaded = load_plan_file(path);
                CHECK(loaded.name == plan_name);
                CHECK(std::filesystem::equivalent(loaded.workflow_path, wf));
                // Moving keeps the plan's program pointer valid (the Program is on the heap).
                workflow::LoadedPlan moved = std::move(loaded);
                CHECK(&moved.plan.program() == moved.program.get());
                check_same(plan, moved.plan);
            }
        }
    }
}

TEST_CASE("plan file: a valid hand edit moves an input and its downstream placement",
          "[plan_file]") {
    TempDir dir;
    const std::string path = matmul_plan(dir);
    std::string text = read(path);
    // B starts in Part[1] (by its column) instead of Part[0]: the join's output follows B's
    // column key, which is position 2 of AB (i, k, j).
    text = edit(text, "origin: B, placement: \"Part[0]\"", "origin: B, placement: \"Part[1]\"");
    const std::string only_input = dir.write("only_input.yaml", text);
    // Without the downstream edit the join's stored placement is now wrong.
    expect_error(only_input, loc(only_input, text, "  - {id: 3,", "{"),
                 "node #3 (local_join producing 'AB'): it claims placement Part[1] but produces "
                 "Part[2]");
    text = edit(text, "inputs: [2, 1], placement: \"Part[1]\"",
                "inputs: [2, 1], placement: \"Part[2]\"");
    const std::string ok = dir.write("ok.yaml", text);
    workflow::LoadedPlan loaded = load_plan_file(ok);
    CHECK(loaded.plan.node(1).placement == Placement::part({1}));
    CHECK(loaded.plan.node(3).placement == Placement::part({2}));
    CHECK(loaded.plan.node(5).placement == Placement::part({0, 1}));
    CHECK_NOTHROW(ia::annotate_costs(loaded.plan));
    // Placements of computed nodes may be left out: they are inferred.
    const std::string inferred =
        dir.write("inferred.yaml",
                  edit(text, "inputs: [2, 1], placement: \"Part[2]\", ", "inputs: [2, 1], "));
    CHECK(load_plan_file(inferred).plan.node(3).placement == Placement::part({2}));
}

TEST_CASE("plan file: a structural hand edit co-partitions instead of broadcasting",
          "[plan_file]") {
    TempDir dir;
    const std::string text = edit(read(matmul_plan(dir)),
                                  "{id: 2, op: bcast, origin: A, inputs: [0], placement: \"All\"",
                                  "{id: 2, op: shuffle, origin: A, inputs: [0], dims: [1]");
    workflow::LoadedPlan loaded = load_plan_file(dir.write("cmm.yaml", text));
    CHECK(loaded.plan.node(2).placement == Placement::part({1}));
    CHECK(loaded.plan.node(3).placement == Placement::part({1}));
    const ia::PlanTotals t = ia::annotate_costs(loaded.plan);
    CHECK(loaded.plan.node(2).cost.transfer.payload_bytes < 512);  // less than the bcast
    CHECK(t.payload_bytes < 1536);
}

TEST_CASE("plan file: invalid edits are refused at the node", "[plan_file]") {
    TempDir dir;
    const std::string path = matmul_plan(dir);
    const std::string text = read(path);
    auto bad = [&](const std::string& from, const std::string& to, const std::string& line_start,
                   const std::string& needle, const std::string& what) {
        const std::string t = edit(text, from, to);
        const std::string p = dir.write("bad.yaml", t);
        INFO(from << " -> " << to);
        expect_error(p, loc(p, t, line_start, needle), what);
    };
    SECTION("a local join of inputs that are not co-located") {
        bad("{id: 2, op: bcast, origin: A, inputs: [0], placement: \"All\"",
            "{id: 2, op: shuffle, origin: A, inputs: [0], dims: [0], placement: \"Part[0]\"",
            "  - {id: 3,", "{",
            "node #3 (local_join producing 'AB'): inputs are not co-located on the join keys: "
            "left Part[0], right Part[0] joined on [1] = [0]");
    }
    SECTION("an unknown origin") {
        bad("{id: 4, op: shuffle, origin: AB,", "{id: 4, op: shuffle, origin: XY,", "  - {id: 4,",
            "XY", "node #4: unknown origin 'XY'");
    }
    SECTION("an input that does not come before the node") {
        bad("inputs: [2, 1]", "inputs: [2, 4]", "  - {id: 3,", "4]",
            "node #3 (local_join producing 'AB'): input #4 does not come before it");
    }
    SECTION("an input holding the wrong relation") {
        bad("inputs: [2, 1]", "inputs: [2, 0]", "  - {id: 3,", "0]",
            "node #3 (local_join producing 'AB'): input #0 holds 'A' but input 1 must hold 'B'");
    }
    SECTION("an op that does not fit the origin's TRA operator") {
        bad("{id: 5, op: local_aggregate,", "{id: 5, op: local_filter,", "  - {id: 5,",
            "local_filter",
            "node #5 (local_filter producing 'C'): 'C' is a TRA aggregate, which local_aggregate "
            "computes");
    }
    SECTION("bad placement text") {
        bad("{id: 0, op: input, origin: A, placement: \"Part[0]\"",
            "{id: 0, op: input, origin: A, placement: \"Part[0\"", "  - {id: 0,", "\"Part[0\"",
            "node #0 (input producing 'A'): bad placement 'Part[0' (expected All, Part[");
    }
    SECTION("a placement outside the key") {
        bad("{id: 0, op: input, origin: A, placement: \"Part[0]\"",
            "{id: 0, op: input, origin: A, placement: \"Part[2]\"", "  - {id: 0,", "\"Part[2]\"",
            "node #0 (input producing 'A'): placement Part[2] uses key position 2 but 'A' has "
            "keys of 2 positions");
    }
    SECTION("a node id out of order") {
        bad("{id: 4,", "{id: 7,", "  - {id: 7,", "7", "this is node #4, not #7");
    }
    SECTION("a relation nobody computes") {
        const std::string t = text.substr(0, text.find("  - {id: 5,"));
        const std::string p = dir.write("bad.yaml", t);
        expect_error(p, loc(p, t, "  - {id: 0,", "-"), "no node computes 'C'");
    }
    SECTION("a list where a map of fields belongs") {
        // workflow: {path, hash} as a list of one such map; the fuzzer's `ranked_by:` followed
        // by a list made yaml-cpp throw past tra's errors.
        std::string t = edit(text, "workflow:\n  path:", "workflow:\n  - path:");
        t = edit(t, "\n  hash:", "\n    hash:");
        const std::string p = dir.write("bad.yaml", t);
        expect_error(p, loc(p, t, "  - path:", "-"), "expected a map");
    }
    SECTION("a wrong format version") {
        bad("format: tra-plan/1", "format: tra-plan/2", "format:", "tra-plan/2",
            "unsupported plan format 'tra-plan/2': this tra reads tra-plan/1");
    }
}

TEST_CASE("plan file: a changed workflow is refused by its hash", "[plan_file]") {
    TempDir dir;
    const std::string path = matmul_plan(dir);
    const std::string old_hash = file_content_hash(dir / "mm.yaml");
    dir.write("mm.yaml", kMatmul + "# an edit\n");
    const std::string text = read(path);
    expect_error(path, loc(path, text, "  hash:", "\"fnv"),
                 "the workflow changed since the plan was made: '" + (dir / "mm.yaml") +
                     "' now has hash " + file_content_hash(dir / "mm.yaml") +
                     ", the plan was made for " + old_hash);
}

TEST_CASE("plan file: a tile map's arity is the origin's piece count", "[plan_file]") {
    TempDir dir;
    const std::string wf = dir.write("maps.yaml", kMaps);
    const Program program = workflow::load_workflow(wf);
    const std::string path = dir / "plan.yaml";
    workflow::save_plan_file(path, ia::compile_initial(program, 2), wf, "initial");
    const std::string text = read(path);
    CHECK_THAT(text, Catch::Contains("op: map, origin: T, inputs: [0], arity: 2,"));
    const std::string t =
        edit(text, "origin: T, inputs: [0], arity: 2,", "origin: T, inputs: [0], arity: 3,");
    const std::string p = dir.write("bad.yaml", t);
    const std::string line = t.substr(t.rfind('\n', t.find("arity: 3")) + 1, 12);
    expect_error(p, loc(p, t, line, "arity: 3", 7),
                 "(map producing 'T'): a map for TRA tile 'T' has arity 2, not 3");
}
