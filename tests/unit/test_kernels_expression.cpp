// The expression kernels `expr` and `expr_join` (lib/kernels/expression_kernels.cpp) through the
// registry: values, shapes, printing, per-call properties and refused expressions.
#include "kernel_fixtures.hpp"
#include "kernels/parallel_for.hpp"

using namespace tra;
using namespace tra::kernels;
using namespace tra::kernel_testing;

namespace {

KernelParams expr_params(std::string text) {
    KernelParams p;
    p.expr = std::move(text);
    return p;
}

}  // namespace

TEST_CASE("expr maps a tile by its expression in x") {
    for (DType d : kDtypes) {
        INFO(name_of(d));
        // Large enough to be split across threads (parallel_for), odd to end mid-block.
        Tile a = random_tile(d, {301, 257}, -3, 3, 11);
        Tile want(d, a.shape());
        for (std::int64_t i = 0; i < a.elements(); ++i) {
            const double x = a.get(i);
            want.set(i, x * (1.0 / std::sqrt(x * x + 1e-6)) - std::tanh(x) / 2);
        }
        require_close(run("expr", {&a}, expr_params("x * rsqrt(x * x + 1e-6) - tanh(x) / 2")),
                      want);
    }
}

TEST_CASE("expr_join combines two tiles of one shape by its expression in a and b") {
    for (DType d : kDtypes) {
        INFO(name_of(d));
        Tile a = random_tile(d, {40, 3, 7}, -2, 2, 12);
        Tile b = random_tile(d, {40, 3, 7}, -2, 2, 13);
        Tile want(d, a.shape());
        for (std::int64_t i = 0; i < a.elements(); ++i)
            want.set(i, (a.get(i) - b.get(i)) * (a.get(i) - b.get(i)) + std::max(a.get(i), 0.5));
        require_close(run("expr_join", {&a, &b}, expr_params("(a - b) * (a - b) + max(a, 0.5)")),
                      want);
        Tile empty = random_tile(d, {0, 4}, -1, 1, 14);
        CHECK(run("expr_join", {&empty, &empty}, expr_params("a + b")).elements() == 0);
    }
    std::vector<Shape> bad{Shape{2, 3}, Shape{3, 2}};
    CHECK(error_of([&] { KernelCall("expr_join", expr_params("a + b")).output_shape(bad); }) ==
          "expr_join: operand shapes differ: [2, 3] vs [3, 2]");
}

TEST_CASE("expression kernels print their text and derive only elementwise and f(0) = 0") {
    const KernelCall norm("expr", expr_params("x * rsqrt(x * x + 1e-6)"));
    CHECK(norm.str() == "expr(x * rsqrt(x * x + 1e-6))");
    CHECK(norm.operand_count() == 1);
    CHECK(norm.properties().elementwise);
    CHECK(norm.properties().zero_preserving);
    CHECK(!KernelCall("expr", expr_params("sigmoid(x)")).properties().zero_preserving);
    // Looks commutative and associative, and is, but is never declared so.
    const KernelCall sum("expr_join", expr_params("a + b"));
    CHECK(sum.operand_count() == 2);
    CHECK(sum.properties().zero_preserving);
    CHECK(!sum.properties().associative);
    CHECK(!sum.properties().commutative);
    CHECK(!sum.properties().aggregation());
    CHECK(!sum.properties().identity);
    CHECK(!sum.properties().annihilator);
    CHECK(sum.properties().distributes_over.empty());
    CHECK(!find_kernel("expr")->properties.zero_preserving);
}

TEST_CASE("expression kernels refuse a bad expression when the call is made") {
    CHECK(error_of([] { KernelCall("expr", expr_params("a * 2")); }) ==
          "column 1 of the expression \"a * 2\": variable 'a' is not available here; the "
          "variables are x (a transform's element)");
    CHECK(error_of([] { KernelCall("expr_join", expr_params("(a - b")); }) ==
          "column 7 of the expression \"(a - b\": expected ')' to close the '(' at column 1, got "
          "the end of the expression");
    CHECK(error_of([] { KernelCall("expr", {}); }) ==
          "expr: the expression is missing, e.g. \"x * 2\"");
    CHECK(error_of([] { KernelCall("expr_join", {}); }) ==
          "expr_join: the expression is missing, e.g. \"a - b\"");
}

TEST_CASE("einsum joins by an expression: (a - b)^2 summed, |a - b| maxed, on 1 and 2 threads") {
    for (DType d : kDtypes) {
        INFO(name_of(d));
        // The summed k (600) spans two of the loop's blocks; i is split across threads.
        Tile x = random_tile(d, {37, 600}, -1, 1, 21);
        Tile y = random_tile(d, {9, 600}, -1, 1, 22);
        Tile sq(d, {37, 9}), far(d, {37});
        for (std::int64_t i = 0; i < 37; ++i) {
            double most = 0;
            for (std::int64_t j = 0; j < 9; ++j) {
                double s = 0;
                for (std::int64_t k = 0; k < 600; ++k) {
                    const double diff = x.get(i * 600 + k) - y.get(j * 600 + k);
                    s += diff * diff;
                    most = std::max(most, std::abs(diff));
                }
                sq.set(i * 9 + j, s);
            }
            far.set(i, most);
        }
        KernelParams p = expr_params("(a - b) * (a - b)");
        p.spec = "ik,jk->ij";
        p.join_op = "expr";
        KernelParams q = expr_params("abs(a - b)");
        q.spec = "ik,jk->i";
        q.join_op = "expr";
        q.agg_op = "max";
        for (int threads : {1, 2}) {
            INFO(threads << " thread(s)");
            set_kernel_threads(threads);
            require_close(run("einsum", {&x, &y}, p), sq);
            require_close(run("einsum", {&x, &y}, q), far);
        }
        set_kernel_threads(1);
        CHECK(KernelCall("einsum", p).str() ==
              "einsum(ik,jk->ij; join=expr((a - b) * (a - b)), "
              "agg=add)");
        CHECK(KernelCall("einsum", p).properties().zero_preserving);
        p.expr = "a / b";
        CHECK_FALSE(KernelCall("einsum", p).properties().zero_preserving);
        p.expr = "a - c";
        CHECK_THROWS_WITH(KernelCall("einsum", p), Catch::Contains("unknown name 'c'"));
    }
}
