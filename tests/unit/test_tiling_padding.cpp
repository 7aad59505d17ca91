// Padding under `tile: auto` (docs/workflow-format.md, "Padding"): which dimension classes the
// tracker (tra/tiling_classes.hpp) lets take tiles that do not divide their extent, and the steps
// it names when it refuses. Whole workflows that pad (the fills asked for first, the search's
// padded tiles, cropped outputs): test_padded_workflows.cpp.
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "tra/tiling_classes.hpp"

using namespace tra;

namespace {

const SourceLocation kStep{"t.yaml", 3, 5, "R"};

// Whether the class holding dimension `dim` of input `input` is paddable.
bool paddable(const TilingClasses& c, const std::string& input, std::size_t dim) {
    return c.space().paddable(input, dim);
}

EinsumStep einsum_step(std::string spec, std::vector<std::string> inputs, std::string join = "mul",
                       std::string agg = "add") {
    EinsumStep s;
    s.spec = std::move(spec);
    s.inputs = std::move(inputs);
    s.join_op = std::move(join);
    s.agg_op = std::move(agg);
    return s;
}

// Why that class is not paddable (TileClass::unpadded_by); empty when it is.
std::string unpadded_by(const TilingClasses& c, const std::string& input, std::size_t dim) {
    const TilingSpace s = c.space();
    const TileClass* k = s.class_of(input, dim);
    return k ? k->unpadded_by : "no class";
}

}  // namespace

TEST_CASE("padding: exact where padded entries meet only zeros in sums", "[tiling][padding]") {
    SECTION("a matrix product and element-wise steps: every label") {
        TilingClasses c;
        c.add_input("A", Shape{37, 50}, {0, 0});
        c.add_input("B", Shape{50, 29}, {0, 0});
        c.add_einsum("C", einsum_step("ik,kj->ij", {"A", "B"}));
        c.add_transform("R", "C", kernels::KernelCall("relu"), kStep);  // relu(0) = 0
        c.add_einsum("s", einsum_step("ij->i", {"R"}));                 // sums the padded j
        c.add_transform("E", "C", kernels::KernelCall("exp"), kStep);   // output only: cropped
        for (const auto& [input, dim] : {std::pair{"A", 0}, {"A", 1}, {"B", 1}})
            CHECK(paddable(c, input, dim));
    }
    SECTION("a sum over exp's padding (exp(0) = 1): filled with 0 first") {
        TilingClasses c;  // the loader sets E's padding along j to 0 before the sum
        c.add_input("A", Shape{37, 50}, {0, 0});
        c.add_transform("E", "A", kernels::KernelCall("exp"), kStep);
        c.add_einsum("s", einsum_step("ij->i", {"E"}));
        CHECK(paddable(c, "A", 0));
        CHECK(paddable(c, "A", 1));
        TilingClasses d;  // E . E over j: 1 x 1 in the padding; one factor is set to 0 first
        d.add_input("A", Shape{37, 50}, {0, 0});
        d.add_transform("E", "A", kernels::KernelCall("exp"), kStep);
        d.add_einsum("s", einsum_step("ij,ij->i", {"E", "E"}));
        CHECK(paddable(d, "A", 0));
        CHECK(paddable(d, "A", 1));
        REQUIRE(d.fills_before("s").size() == 1);
        CHECK(d.fills_before("s")[0].operand == 0);
        CHECK(d.fills_before("s")[0].positions == std::vector<std::size_t>{1});
        CHECK(d.fills_before("s")[0].value == 0.0);
    }
    SECTION("a max of one tensor takes max's identity in the padding; of a join, zeros") {
        TilingClasses c;  // the loader fills A's padding along k with -inf first
        c.add_input("A", Shape{37, 50}, {0, 0});
        c.add_einsum("m", einsum_step("ik->i", {"A"}, "mul", "max"));
        c.add_einsum("p", einsum_step("ik->k", {"A"}, "mul", "mul"));  // mul: filled with 1
        CHECK(paddable(c, "A", 0));
        CHECK(paddable(c, "A", 1));
        TilingClasses j;  // max(a + v) over a padded k: the joined padding is not filled
        j.add_input("A", Shape{37, 50}, {0, 0});
        j.add_input("v", Shape{50}, {0});
        j.add_einsum("m", einsum_step("ik,k->i", {"A", "v"}, "add", "max"));
        CHECK(paddable(j, "A", 0));
        CHECK_FALSE(paddable(j, "A", 1));
    }
    SECTION("a product is zero where one factor is; a sum only where every term is") {
        TilingClasses c;
        c.add_input("A", Shape{37, 50}, {0, 0});
        c.add_input("v", Shape{50}, {0});
        c.add_transform("S", "A", kernels::KernelCall("sigmoid"), kStep);  // sigmoid(0) = 1/2
        c.add_einsum("P", einsum_step("ij,j->ij", {"S", "v"}));            // times v: zeros in j
        c.add_einsum("Q", einsum_step("ij,j->ij", {"A", "v"}, "add"));     // A + v: not in i
        c.add_einsum("q", einsum_step("ij,ij->i", {"Q", "S"}));            // sums j: zeros there
        CHECK(c.fills_before("q").empty());
        c.add_einsum("p", einsum_step("ij,ij->j", {"P", "S"}, "add"));  // sums S's padded i
        CHECK_FALSE(paddable(c, "A", 0));
        CHECK(paddable(c, "A", 1));
    }
    SECTION("the paper's matrix multiply: a matmul join and an aggregate that sums") {
        TilingClasses c;
        c.add_input("A", Shape{37, 50}, {0, 0});
        c.add_input("B", Shape{50, 29}, {0, 0});
        c.add_join("AB", "A", "B", {1}, {0}, kernels::KernelCall("matmul"), kStep);
        c.add_aggregate("C", "AB", {0, 2}, kernels::KernelCall("add"));
        for (const auto& [input, dim] : {std::pair{"A", 0}, {"A", 1}, {"B", 1}})
            CHECK(paddable(c, input, dim));
    }
    SECTION("transposed products sum the letter their tiles share") {
        TilingClasses c;
        c.add_input("A", Shape{50, 37}, {0, 0});  // [k, m]
        c.add_input("B", Shape{29, 50}, {0, 0});  // [n, k]
        c.add_join("AB", "A", "B", {0}, {1}, kernels::KernelCall("matmul_tt"), kStep);
        c.add_aggregate("C", "AB", {1, 2}, kernels::KernelCall("add"));
        for (const auto& [input, dim] : {std::pair{"A", 0}, {"A", 1}, {"B", 0}})
            CHECK(paddable(c, input, dim));
    }
    SECTION("a product summing a padding that is not zero, or joined off its letters") {
        TilingClasses c;
        c.add_input("A", Shape{37, 50}, {0, 0});
        c.add_input("B", Shape{50, 29}, {0, 0});
        c.add_transform("S", "A", kernels::KernelCall("sigmoid"), kStep);  // sigmoid(0) = 1/2
        c.add_transform("T", "B", kernels::KernelCall("sigmoid"), kStep);
        c.add_join("SB", "S", "B", {1}, {0}, kernels::KernelCall("matmul"), kStep);  // 1/2 x 0
        c.add_join("ST", "S", "T", {1}, {0}, kernels::KernelCall("matmul"), kStep);  // 1/2 x 1/2
        CHECK(c.fills_before("SB").empty());
        REQUIRE(c.fills_before("ST").size() == 1);  // S's padding along k is set to 0 first
        CHECK(c.fills_before("ST")[0].operand == 0);
        CHECK(c.fills_before("ST")[0].positions == std::vector<std::size_t>{1});
        CHECK(c.fills_before("ST")[0].value == 0.0);
        for (const auto& [input, dim] : {std::pair{"A", 0}, {"A", 1}, {"B", 0}, {"B", 1}})
            CHECK(paddable(c, input, dim));
        TilingClasses l;  // log(0) = -inf on both sides: no factor with a finite co-factor
        l.add_input("A", Shape{37, 50}, {0, 0});
        l.add_input("B", Shape{50, 29}, {0, 0});
        l.add_transform("LA", "A", kernels::KernelCall("log"), kStep);
        l.add_transform("LB", "B", kernels::KernelCall("log"), kStep);
        l.add_join("LL", "LA", "LB", {1}, {0}, kernels::KernelCall("matmul"), kStep);
        CHECK(l.fills_before("LL").empty());
        CHECK_FALSE(paddable(l, "A", 1));
        CHECK_FALSE(paddable(l, "B", 0));
        CHECK(paddable(l, "A", 0));
        TilingClasses d;  // on A's rows and B's columns: m meets n, so not followed
        d.add_input("A", Shape{37, 50}, {0, 0});
        d.add_input("B", Shape{50, 37}, {0, 0});
        d.add_join("AB", "A", "B", {0}, {1}, kernels::KernelCall("matmul"), kStep);
        CHECK_FALSE(paddable(d, "A", 0));
        CHECK_FALSE(paddable(d, "B", 0));
    }
    SECTION("outputs are cropped tensors: other relations may not carry padding out") {
        TilingClasses c;
        c.add_input("A", Shape{37, 50}, {0, 0});
        c.add_input("B", Shape{50, 29}, {0, 0});
        c.add_join("AB", "A", "B", {1}, {0}, kernels::KernelCall("matmul"), kStep);
        c.add_aggregate("C", "AB", {0, 2}, kernels::KernelCall("add"));
        c.add_output("C");  // keys (i, j) cut tile dimensions (0, 1): cropped
        CHECK(paddable(c, "A", 0));
        CHECK(paddable(c, "B", 1));
        c.add_output("AB");  // keys (i, k, j) over 2-D tiles: written with its padding
        CHECK_FALSE(paddable(c, "A", 0));
        CHECK_FALSE(paddable(c, "B", 1));
        TilingClasses d;
        d.add_input("A", Shape{37, 50}, {0, 0});
        d.add_aggregate("rows", "A", {0}, kernels::KernelCall("add"));  // key i, 2-D tiles
        d.add_output("rows");
        CHECK_FALSE(paddable(d, "A", 0));
    }
    SECTION("an aggregate folds a dropped tile dimension only by a sum of zeros") {
        TilingClasses c;
        c.add_input("A", Shape{37, 50}, {0, 0});
        c.add_input("D", Shape{37, 50}, {0, 0});
        c.add_aggregate("rows", "A", {0}, kernels::KernelCall("add"));  // folds A's columns
        c.add_aggregate("m", "D", {0}, kernels::KernelCall("max"));     // D's padding: -inf first
        CHECK(paddable(c, "A", 0));
        CHECK(paddable(c, "A", 1));
        CHECK(paddable(c, "D", 0));  // kept: padded entries fold with padded entries only
        CHECK(paddable(c, "D", 1));
        TilingClasses t;  // a max folding a relation that is not a tensor: not filled
        t.add_input("A", Shape{37, 50}, {0, 0});
        t.add_aggregate("rows", "A", {0}, kernels::KernelCall("add"));  // key i, 2-D tiles
        t.add_aggregate("m", "rows", {}, kernels::KernelCall("max"));   // max(x, 0) != x
        CHECK_FALSE(paddable(t, "A", 0));
        TilingClasses e;  // exp(0) = 1 in the padding: set to 0 before the sum of a tensor
        e.add_input("A", Shape{37, 50}, {0, 0});
        e.add_transform("E", "A", kernels::KernelCall("exp"), kStep);
        e.add_aggregate("s", "E", {0}, kernels::KernelCall("add"));
        CHECK(paddable(e, "A", 0));
        CHECK(paddable(e, "A", 1));
        TilingClasses n;  // ... but not of a relation of other tiles
        n.add_input("A", Shape{37, 50}, {0, 0});
        n.add_aggregate("rows", "A", {0}, kernels::KernelCall("add"));  // key i, 2-D tiles
        n.add_transform("E", "rows", kernels::KernelCall("exp"), kStep);
        n.add_aggregate("s", "E", {}, kernels::KernelCall("add"));
        CHECK_FALSE(paddable(n, "A", 0));
    }
    SECTION("a zero factor makes a zero product only when the other is finite") {
        TilingClasses c;  // log(0) = -inf in L's padding, and 0 * -inf is NaN
        c.add_input("A", Shape{37, 50}, {0, 0});
        c.add_input("Y", Shape{37, 50}, {0, 0});
        c.add_transform("L", "A", kernels::KernelCall("log"), kStep);
        c.add_einsum("x", einsum_step("ij,ij->i", {"Y", "L"}));  // sums j: L's padding set to 0
        CHECK(paddable(c, "A", 0));
        CHECK(paddable(c, "A", 1));
        REQUIRE(c.fills_before("x").size() == 1);
        CHECK(c.fills_before("x")[0].operand == 1);              // Y is finite; L is not
        c.add_einsum("l", einsum_step("ij,ij->i", {"L", "L"}));  // no factor with finite others
        CHECK(c.fills_before("l").empty());
        CHECK_FALSE(paddable(c, "A", 1));
        TilingClasses m;  // the same through a matrix product and an element-wise join
        m.add_input("A", Shape{37, 50}, {0, 0});
        m.add_input("B", Shape{50, 29}, {0, 0});
        m.add_input("D", Shape{37, 50}, {0, 0});
        m.add_transform("R", "B", kernels::KernelCall("reciprocal"), kStep);  // 1 / 0 = inf
        m.add_join("AR", "A", "R", {1}, {0}, kernels::KernelCall("matmul"), kStep);
        REQUIRE(m.fills_before("AR").size() == 1);  // A is finite: R's padding set to 0 first
        CHECK(m.fills_before("AR")[0].operand == 1);
        CHECK(m.fills_before("AR")[0].positions == std::vector<std::size_t>{0});
        m.add_transform("Q", "A", kernels::KernelCall("rsqrt"), kStep);
        m.add_join("DQ", "D", "Q", {0, 1}, {0, 1}, kernels::KernelCall("mul"), kStep);
        m.add_aggregate("s", "DQ", {0}, kernels::KernelCall("add"));  // sums DQ's padded columns
        REQUIRE(m.fills_before("s").size() == 1);  // 0 x inf is NaN in DQ: set to 0 first
        CHECK(m.fills_before("s")[0].positions == std::vector<std::size_t>{1});
        for (const auto& [input, dim] : {std::pair{"A", 0}, {"A", 1}, {"B", 0}, {"B", 1}})
            CHECK(paddable(m, input, dim));
        TilingClasses n;  // DQ summed by a matmul, with a co-factor that is not finite either
        n.add_input("D", Shape{37, 50}, {0, 0});
        n.add_input("B", Shape{50, 29}, {0, 0});
        n.add_transform("Q", "D", kernels::KernelCall("rsqrt"), kStep);
        n.add_join("DQ", "D", "Q", {0, 1}, {0, 1}, kernels::KernelCall("mul"), kStep);
        n.add_transform("R", "B", kernels::KernelCall("reciprocal"), kStep);
        n.add_join("QR", "DQ", "R", {1}, {0}, kernels::KernelCall("matmul"), kStep);
        CHECK_FALSE(paddable(n, "D", 1));
        CHECK(paddable(n, "D", 0));
    }
    SECTION("softmax along a padded dimension: its padding holds zeros") {
        TilingClasses c;  // cross-entropy over a padded vocabulary
        c.add_input("Z", Shape{37, 101}, {0, 0});
        c.add_input("Y", Shape{37, 101}, {0, 0});
        c.add_softmax("P", "Z", 1, false);
        c.add_softmax("LP", "Z", 1, true);  // finite in the padding: Y's zeros make it 0
        c.add_einsum("x", einsum_step("bv,bv->b", {"Y", "LP"}));
        c.add_einsum("s", einsum_step("bv->b", {"P"}));
        c.add_output("P");
        CHECK(paddable(c, "Z", 0));
        CHECK(paddable(c, "Z", 1));
        TilingClasses log;  // log_softmax's padding is finite, not zero: not in a product with P
        log.add_input("Z", Shape{37, 101}, {0, 0});
        log.add_softmax("LP", "Z", 1, true);
        log.add_softmax("P", "Z", 1, false);
        log.add_einsum("s", einsum_step("bv->b", {"LP"}));  // one tensor: filled with 0 first
        CHECK(paddable(log, "Z", 1));
        log.add_einsum("h", einsum_step("bv,bv->b", {"LP", "LP"}));  // one factor set to 0
        CHECK(paddable(log, "Z", 1));
        log.add_transform("L", "P", kernels::KernelCall("log"), kStep);
        log.add_einsum("l", einsum_step("bv,bv->b", {"L", "L"}));  // -inf x -inf: neither
        CHECK_FALSE(paddable(log, "Z", 1));
        TilingClasses rows;  // the padded rows are softmaxes of zeros: not zeros, but finite
        rows.add_input("Z", Shape{37, 101}, {0, 0});
        rows.add_softmax("P", "Z", 1, false);
        rows.add_einsum("c", einsum_step("bv,bv->v", {"P", "P"}));  // P's rows set to 0 first
        CHECK(paddable(rows, "Z", 0));
        CHECK(paddable(rows, "Z", 1));
        rows.add_einsum("m", einsum_step("bv,bv->v", {"P", "P"}, "mul", "max"));  // not a sum
        CHECK_FALSE(paddable(rows, "Z", 0));
    }
    SECTION("joins with other kernels and carries are not followed") {
        TilingClasses c;
        c.add_input("D", Shape{37, 29}, {0, 0});
        c.add_input("H", Shape{37, 29}, {0, 0});
        c.add_join("E", "D", "D", {0, 1}, {0, 1}, kernels::KernelCall("add"), kStep);
        c.add_join("K", "H", "H", {0}, {0}, kernels::KernelCall("add"), kStep);  // not aligned
        CHECK(paddable(c, "D", 0));  // an element-wise join on every position is followed
        CHECK_FALSE(paddable(c, "H", 0));
        CHECK_FALSE(paddable(c, "H", 1));
        TilingClasses loop;
        loop.add_input("W", Shape{37}, {0});
        loop.add_transform("V", "W", kernels::KernelCall("relu"), kStep);
        loop.add_carry("W", "V");
        CHECK_FALSE(paddable(loop, "W", 0));
    }
}

TEST_CASE("padding: a class that may not be padded names the first step that refuses it",
          "[tiling][padding]") {
    using Catch::Contains;
    SECTION("an einsum summing products none of which can be zeroed") {
        TilingClasses c;
        c.add_input("Z", Shape{24, 101}, {0, 0});
        c.add_transform("L", "Z", kernels::KernelCall("log"), kStep);
        c.add_einsum("e", einsum_step("bv,bv->b", {"L", "L"}));
        c.add_einsum("f", einsum_step("bv,bv->b", {"L", "L"}, "add"));  // later: not named
        CHECK(unpadded_by(c, "Z", 0).empty());
        CHECK_THAT(unpadded_by(c, "Z", 1),
                   Contains("step e (einsum \"bv,bv->b\") sums products over label 'v'") &&
                       Contains("0 x inf is NaN"));
    }
    SECTION("a reduction by max over several operands, a join by add") {
        TilingClasses c;
        c.add_input("A", Shape{37, 50}, {0, 0});
        c.add_input("v", Shape{50}, {0});
        c.add_einsum("m", einsum_step("ik,k->i", {"A", "v"}, "add", "max"));
        CHECK_THAT(unpadded_by(c, "A", 1),
                   Contains("step m") && Contains("reduces label 'k' by max over several"));
        TilingClasses j;
        j.add_input("A", Shape{37, 50}, {0, 0});
        j.add_input("v", Shape{50}, {0});
        j.add_transform("E", "v", kernels::KernelCall("exp"), kStep);
        j.add_einsum("s", einsum_step("ik,k->i", {"A", "E"}, "add"));
        CHECK_THAT(unpadded_by(j, "A", 1),
                   Contains("sums label 'k' over a join by add whose padding is not zero"));
    }
    SECTION("joins, transforms, carries and outputs") {
        TilingClasses c;
        c.add_input("H", Shape{37, 29}, {0, 0});
        c.add_join("K", "H", "H", {0}, {0}, kernels::KernelCall("add"), kStep);
        CHECK_THAT(unpadded_by(c, "H", 0),
                   Contains("step K joins with kernel add, which tra does not follow"));
        TilingClasses t;
        t.add_input("A", Shape{37, 29}, {0, 0});
        t.add_transform("T", "A", kernels::KernelCall("transpose"), kStep);
        CHECK_THAT(unpadded_by(t, "A", 0), Contains("step T applies kernel transpose"));
        TilingClasses loop;
        loop.add_input("W", Shape{37}, {0});
        loop.add_transform("V", "W", kernels::KernelCall("relu"), kStep);
        loop.add_carry("W", "V");
        CHECK_THAT(unpadded_by(loop, "W", 0), Contains("the loop carries step V into input W"));
        TilingClasses out;
        out.add_input("A", Shape{37, 50}, {0, 0});
        out.add_aggregate("rows", "A", {0}, kernels::KernelCall("add"));  // key i, 2-D tiles
        out.add_output("rows");
        CHECK_THAT(unpadded_by(out, "A", 0), Contains("output rows is not a plain tensor"));
        TilingClasses mm;  // a matmul join summing log's padding (-inf) against -inf
        mm.add_input("A", Shape{37, 50}, {0, 0});
        mm.add_input("B", Shape{50, 29}, {0, 0});
        mm.add_transform("S", "A", kernels::KernelCall("log"), kStep);
        mm.add_transform("T", "B", kernels::KernelCall("log"), kStep);
        mm.add_join("SS", "S", "T", {1}, {0}, kernels::KernelCall("matmul"), kStep);
        CHECK_THAT(unpadded_by(mm, "A", 1), Contains("step SS (a product") &&
                                                Contains("sums a dimension whose products") &&
                                                Contains("set to 0 with the other finite"));
    }
    SECTION("a fixed class names nothing: its tile is the workflow's") {
        TilingClasses c;
        c.add_input("Z", Shape{24, 101}, {0, 0});
        c.add_input("F", Shape{24, 101}, {0, 101});
        c.add_transform("L", "Z", kernels::KernelCall("log"), kStep);
        c.add_einsum("e", einsum_step("bv,bv->b", {"L", "L"}));
        c.add_einsum("g", einsum_step("bv,bv->bv", {"Z", "F"}));
        CHECK(unpadded_by(c, "Z", 1).empty());
    }
}
