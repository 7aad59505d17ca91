// Padding under `tile: auto` end to end (docs/workflow-format.md, "Padding"): workflows whose
// tiles do not divide their extents, loaded, searched and evaluated by the reference evaluator
// against values computed here: the fills the tracker asks for first (tra/fold_fills.hpp: an
// aggregation's identity, a factor's zero), the search's padded tiles and cropped outputs. Which
// classes may be padded at all: test_tiling_padding.cpp.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "optimizer/tiling_search.hpp"
#include "runtime/reference_evaluator.hpp"
#include "temp_dir.hpp"
#include "workflow/workflow_loader.hpp"

using namespace tra;
using tra::optimizer::PlanRequest;

TEST_CASE("padding: the search offers padded tiles, outputs are cropped", "[tiling][padding]") {
    const std::string wf = TRA_SOURCE_DIR "/plans/examples/padded.yaml";
    workflow::LoadOptions options;
    options.tiling = {
        {"X", Shape{8, 7}}, {"W1", Shape{7, 12}}, {"W2", Shape{12, 26}}, {"Y", Shape{8, 26}}};
    const Program p = workflow::load_workflow(wf, options);
    for (const char* name : {"X", "W1", "W2", "Y"}) {
        const Node& n = p.node(*p.find(name));
        CHECK(std::get<InputOp>(n.op).source.padded);
    }
    CHECK(p.node(*p.find("W2")).frontier == Frontier{4, 4});  // 45 / 12 and 101 / 26, rounded up
    REQUIRE(p.outputs.size() == 8);
    for (const Output& o : p.outputs) {
        const std::string& n = p.node(o.node).name;
        const bool rows = n == "xent" || n == "top" || n == "z" || n == "ent";
        const Shape cropped = n == "Q" ? Shape{24, 45} : Shape{24, 101};
        CHECK(o.shape == (rows ? Shape{} : cropped));  // b = 3 x 8: nothing to crop
    }
    // The softmaxes fill L's padding with -inf before their max; log_softmax subtracts from L.
    CHECK(p.find("S.mask"));
    CHECK(p.find("LS.mask"));
    CHECK(p.find("LS.offset"));
    CHECK(p.find("ent.operand2.mask"));  // log(S) is -inf in the padding: set to 0 first
    CHECK(p.find("Qj.operand1.mask"));   // exp(L) x exp(W2): 1 x 1 in the padding along v
    // Without padding: nothing to crop.
    CHECK(workflow::load_workflow(wf).outputs.front().shape.empty());

    PlanRequest request;
    request.sites = 4;
    request.cost = optimizer::CostModel::Time;
    request.top = 200;
    const Program loaded = workflow::load_workflow(wf);
    const optimizer::RankedPlans r = optimizer::rank_tiled_plans(
        loaded, workflow::program_of_tiling(wf, workflow::LoadOptions{}), request);
    bool padded = false;  // some listed plan cuts v = 101 into tiles of 51, 26, 13, 7, 4 or 2
    for (const auto& plan : r.plans)
        for (const char* t : {"W2@45x51", "W2@45x26", "x13,", "x7,", "x4,"})
            padded = padded || plan.name.find(t) != std::string::npos;
    CHECK(padded);

    request.tiling_pins = {{"W2", Shape{45, 26}}};
    CHECK_NOTHROW(
        optimizer::rank_tiled_plans(loaded, workflow::program_of_tiling(wf, {}), request));

    // The paper's matrix multiply (a join with kernel matmul, an aggregate by add) pads.
    const std::string mm = TRA_SOURCE_DIR "/plans/paper/auto/scaled/mm-general.yaml";
    request.tiling_pins = {{"A", Shape{300, 1000}}, {"B", Shape{1000, 300}}};
    CHECK_NOTHROW(optimizer::rank_tiled_plans(workflow::load_workflow(mm),
                                              workflow::program_of_tiling(mm, {}), request));
    // A pin that pads a dimension where it is not exact is refused, naming it: a max of A + v
    // over the padded columns would see the padding's zeros.
    const testing::TempDir dir("padding");
    const std::string maxed = dir.write("max.yaml", R"(name: max_rows
dtype: f64
inputs:
  A: {shape: [40, 30], tile: auto, generate: {uniform: [-1, -0.5], seed: 1}}
  v: {shape: [30], tile: auto, generate: {uniform: [-1, 0], seed: 2}}
program:
  - m: {einsum: "ij,j->i", inputs: [A, v], join: add, agg: max}
  - r: {aggregate: A, by: [0], kernel: max}
  - s: {einsum: "ij->i", inputs: [A], agg: min}
outputs:
  m: {file: out/m.h5}
  r: {file: out/r.h5}
  s: {file: out/s.h5}
)");
    request.tiling_pins = {{"A", Shape{40, 7}}};
    CHECK_THROWS_WITH(
        optimizer::rank_tiled_plans(workflow::load_workflow(maxed),
                                    workflow::program_of_tiling(maxed, {}), request),
        Catch::Contains("tile 7 does not divide 30") && Catch::Contains("may not be padded"));
}

TEST_CASE("padding under max and min: the padding takes the aggregation's identity first",
          "[tiling][padding]") {
    // Every element below 0: a max that saw the padding's zeros would give 0.
    const testing::TempDir dir("padding-max");
    const std::string wf = dir.write("max.yaml", R"(name: max_rows
dtype: f64
inputs:
  A: {shape: [40, 30], tile: auto, generate: {uniform: [-1, -0.5], seed: 1}}
program:
  - r: {aggregate: A, by: [0], kernel: max}
  - s: {einsum: "ij->i", inputs: [A], agg: max}
  - t: {einsum: "ij->j", inputs: [A], agg: min}
outputs:
  r: {file: out/r.h5}
  s: {file: out/s.h5}
  t: {file: out/t.h5}
)");
    workflow::LoadOptions options;
    options.tiling = {{"A", Shape{8, 7}}};  // 30 -> 35 columns (r, not a tensor, keeps rows)
    const Program p = workflow::load_workflow(wf, options);
    CHECK(p.find("r.mask"));
    CHECK(p.find("s.mask"));
    CHECK_FALSE(p.find("r.mask2"));  // r keeps the rows: only the columns are filled
    CHECK_FALSE(p.find("t.mask"));   // t folds the rows, which are not padded
    runtime::ReferenceEvaluator ev(p);
    const TensorRelation a = ev.evaluate(*p.find("A"));
    std::vector<double> row_max(40, -1e300), col_min(35, 1e300);
    for (const auto& [key, tile] : a.tuples)
        for (std::int64_t i = 0; i < 8; ++i)
            for (std::int64_t j = 0; j < 7; ++j) {
                const std::int64_t r = key[0] * 8 + i, c = key[1] * 7 + j;
                if (r >= 40 || c >= 30) continue;  // the padding
                row_max[r] = std::max(row_max[r], tile.get(i * 7 + j));
                col_min[c] = std::min(col_min[c], tile.get(i * 7 + j));
            }
    const TensorRelation s = ev.evaluate(*p.find("s"));
    for (const auto& [key, tile] : s.tuples)
        for (std::int64_t i = 0; i < 8; ++i)
            if (key[0] * 8 + i < 40) CHECK(tile.get(i) == row_max[key[0] * 8 + i]);
    const TensorRelation t = ev.evaluate(*p.find("t"));
    for (const auto& [key, tile] : t.tuples)
        for (std::int64_t j = 0; j < 7; ++j)
            if (key[0] * 7 + j < 30) CHECK(tile.get(j) == col_min[key[0] * 7 + j]);
    const TensorRelation r = ev.evaluate(*p.find("r"));
    for (const auto& [key, tile] : r.tuples)
        for (std::int64_t i = 0; i < 8; ++i)
            for (std::int64_t j = 0; j < 7; ++j) {
                double want = -1e300;  // the max over column tiles at in-tile column j
                for (std::int64_t c = j; c < 30; c += 7)
                    for (const auto& [k2, t2] : a.tuples)
                        if (k2[0] == key[0] && k2[1] * 7 + j == c)
                            want = std::max(want, t2.get(i * 7 + j));
                CHECK(tile.get(i * 7 + j) == want);
            }
}

TEST_CASE("padding under a product: one factor's padding is set to 0 first", "[tiling][padding]") {
    // log(0) = -inf in L's padding and 0 x -inf is NaN: L's padding is set to 0 before the sum.
    const testing::TempDir dir("padding-product");
    const std::string wf = dir.write("alogA.yaml", R"(name: a_log_a
dtype: f64
inputs:
  A: {shape: [40, 30], tile: auto, generate: {uniform: [0.5, 1], seed: 2}}
program:
  - L: {transform: A, kernel: log}
  - s: {einsum: "ij,ij->i", inputs: [A, L]}
outputs:
  s: {file: out/s.h5}
)");
    workflow::LoadOptions options;
    options.tiling = {{"A", Shape{8, 7}}};  // 30 -> 35 columns
    const Program p = workflow::load_workflow(wf, options);
    CHECK(p.find("s.operand2.mask"));
    CHECK_FALSE(p.find("s.operand1.mask"));  // A's padding holds zeros already
    runtime::ReferenceEvaluator ev(p);
    const TensorRelation a = ev.evaluate(*p.find("A"));
    std::vector<double> want(40, 0.0);
    for (const auto& [key, tile] : a.tuples)
        for (std::int64_t i = 0; i < 8; ++i)
            for (std::int64_t j = 0; j < 7; ++j)
                if (key[1] * 7 + j < 30) {
                    const double x = tile.get(i * 7 + j);
                    want[key[0] * 8 + i] += x * std::log(x);
                }
    const TensorRelation s = ev.evaluate(*p.find("s"));
    REQUIRE(s.tuples.size() == 5);
    for (const auto& [key, tile] : s.tuples)
        for (std::int64_t i = 0; i < 8; ++i)
            CHECK(tile.get(i) == Approx(want[key[0] * 8 + i]).epsilon(1e-12));
}

TEST_CASE("padding under a matmul join: one factor's padding is set to 0 first",
          "[tiling][padding]") {
    // The paper's form of a product: a join with kernel matmul, then an aggregate by add. ST
    // sums sigmoid(0) = 1/2 against 1/2, so S's padding along k is set to 0 first; SL sums S
    // against log(0) = -inf, and 0 x -inf is NaN, so L's (S is finite) is.
    const testing::TempDir dir("padding-matmul");
    const std::string wf = dir.write("sigmoid.yaml", R"(name: sigmoid_products
dtype: f64
inputs:
  A: {shape: [40, 30], tile: auto, generate: {uniform: [-1, 1], seed: 3}}
  B: {shape: [30, 20], tile: auto, generate: {uniform: [0.5, 1], seed: 4}}
program:
  - S: {transform: A, kernel: sigmoid}
  - T: {transform: B, kernel: sigmoid}
  - L: {transform: B, kernel: log}
  - STj: {join: [S, T], on: [[1], [0]], kernel: matmul}
  - ST: {aggregate: STj, by: [0, 2], kernel: add}
  - SLj: {join: [S, L], on: [[1], [0]], kernel: matmul}
  - SL: {aggregate: SLj, by: [0, 2], kernel: add}
outputs:
  ST: {file: out/st.h5}
  SL: {file: out/st.h5}
)");
    workflow::LoadOptions options;
    options.tiling = {{"A", Shape{8, 7}}, {"B", Shape{7, 5}}};  // k: 30 -> 35
    const Program p = workflow::load_workflow(wf, options);
    CHECK(p.find("STj.operand1.mask"));
    CHECK_FALSE(p.find("STj.operand2.mask"));
    CHECK(p.find("SLj.operand2.mask"));
    CHECK_FALSE(p.find("SLj.operand1.mask"));
    runtime::ReferenceEvaluator ev(p);
    // The relation's entries inside the extent, row-major [rows][cols].
    auto dense = [&](const char* name, std::int64_t rows, std::int64_t cols, std::int64_t tr,
                     std::int64_t tc) {
        std::vector<double> out(static_cast<std::size_t>(rows * cols));
        for (const auto& [key, tile] : ev.evaluate(*p.find(name)).tuples)
            for (std::int64_t i = 0; i < tr; ++i)
                for (std::int64_t j = 0; j < tc; ++j) {
                    const std::int64_t r = key[0] * tr + i, c = key[1] * tc + j;
                    if (r < rows && c < cols) out[r * cols + c] = tile.get(i * tc + j);
                }
        return out;
    };
    const std::vector<double> a = dense("A", 40, 30, 8, 7), b = dense("B", 30, 20, 7, 5);
    const auto sigmoid = [](double x) { return 1 / (1 + std::exp(-x)); };
    for (const char* name : {"ST", "SL"}) {
        const std::vector<double> got = dense(name, 40, 20, 8, 5);
        for (std::int64_t i = 0; i < 40; ++i)
            for (std::int64_t j = 0; j < 20; ++j) {
                double want = 0;
                for (std::int64_t k = 0; k < 30; ++k) {
                    const double bkj = b[k * 20 + j];
                    want +=
                        sigmoid(a[i * 30 + k]) * (name[1] == 'T' ? sigmoid(bkj) : std::log(bkj));
                }
                CHECK(got[i * 20 + j] == Approx(want).epsilon(1e-12));
            }
    }
}
