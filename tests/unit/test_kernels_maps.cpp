// Element-wise, unary, row/column and argmin kernels against naive loops.
#include "kernel_fixtures.hpp"

using namespace tra;
using namespace tra::kernels;
using namespace tra::kernel_testing;

TEST_CASE("elementwise binary kernels match naive loops") {
    std::map<std::string, std::function<double(double, double)>> ops = {
        {"add", [](double x, double y) { return x + y; }},
        {"sub", [](double x, double y) { return x - y; }},
        {"mul", [](double x, double y) { return x * y; }},
        {"div", [](double x, double y) { return x / y; }},
        {"max", [](double x, double y) { return std::max(x, y); }},
        {"min", [](double x, double y) { return std::min(x, y); }},
    };
    for (DType d : kDtypes)
        for (auto& [name, f] : ops) {
            INFO(name << " " << name_of(d));
            Tile a = random_tile(d, {3, 5, 2}, -2, 2, 5);
            Tile b = random_tile(d, {3, 5, 2}, 0.5, 2, 6);
            Tile want(d, a.shape());
            for (std::int64_t i = 0; i < a.elements(); ++i) want.set(i, f(a.get(i), b.get(i)));
            require_close(run(name, {&a, &b}), want);
            CHECK(find_kernel(name)->properties.elementwise);
        }
    std::vector<Shape> bad{Shape{2, 3}, Shape{3, 2}};
    CHECK(error_of([&] { KernelCall("add").output_shape(bad); }) ==
          "add: operand shapes differ: [2, 3] vs [3, 2]");
    Tile n = from_values(DType::F64, {2}, {std::nan(""), 1.0});
    Tile m = from_values(DType::F64, {2}, {1.0, std::nan("")});
    Tile both = run("max", {&n, &m});
    CHECK(std::isnan(both.get(0)));
    CHECK(std::isnan(both.get(1)));
}

TEST_CASE("sub_row subtracts a vector from every row") {
    for (DType d : kDtypes) {
        Tile a = random_tile(d, {4, 3}, -2, 2, 7);
        Tile v = random_tile(d, {3}, -2, 2, 8);
        Tile want = generate(d, {4, 3}, [&](const Shape& i) {
            return at(a, {i[0], i[1]}) - v.get(i[1]);
        });
        require_close(run("sub_row", {&a, &v}), want);
    }
    std::vector<Shape> bad{Shape{4, 3}, Shape{4}};
    CHECK(error_of([&] { KernelCall("sub_row").output_shape(bad); }) ==
          "sub_row: expects an [r, c] tile and a [c] vector, got [4, 3] x [4]");
}

TEST_CASE("unary maps match naive loops") {
    std::map<std::string, std::function<double(double)>> maps = {
        {"relu", [](double x) { return x > 0 ? x : 0; }},
        {"relu_grad", [](double x) { return x > 0 ? 1.0 : 0.0; }},
        {"sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }},
        {"tanh", [](double x) { return std::tanh(x); }},
        {"exp", [](double x) { return std::exp(x); }},
        {"log", [](double x) { return std::log(x); }},
        {"scale", [](double x) { return 0.5 * x; }},
    };
    for (DType d : kDtypes)
        for (auto& [name, f] : maps) {
            INFO(name << " " << name_of(d));
            Tile a = random_tile(d, {2, 3, 4}, name == "log" ? 0.1 : -3, 3, 9);
            a.set(0, name == "log" ? 1.0 : 0.0);  // relu and relu_grad at exactly 0
            Tile want(d, a.shape());
            for (std::int64_t i = 0; i < a.elements(); ++i) want.set(i, f(a.get(i)));
            require_close(run(name, {&a}, factor_params(0.5)), want);
            CHECK(find_kernel(name)->properties.elementwise);
        }
    Tile big = from_values(DType::F32, {3}, {-200, 200, 0});
    Tile s = run("sigmoid", {&big});
    CHECK(s.get(0) == Approx(0.0).margin(1e-30));
    CHECK(s.get(1) == 1.0);
    CHECK(s.get(2) == 0.5);

    std::vector<Shape> one{Shape{2}};
    CHECK(error_of([&] { KernelCall("scale").output_shape(one); }) ==
          "scale needs a factor, e.g. scale(0.5)");
    Tile a = random_tile(DType::F64, {2});
    CHECK(error_of([&] { KernelCall("scale").apply(std::vector<const Tile*>{&a}); }) ==
          "scale needs a factor, e.g. scale(0.5)");
}

TEST_CASE("named maps match their std:: definitions, large |x| included") {
    const double pi = std::acos(-1.0);
    // The textbook definitions, in double: the kernels compute most of them in other (stable)
    // forms, so these check the rewriting too. silu and softplus stay finite in double up to
    // |x| = 700 (exp(700) ~ 1e304).
    std::map<std::string, std::function<double(double)>> maps = {
        {"sqrt", [](double x) { return std::sqrt(x); }},
        {"rsqrt", [](double x) { return 1 / std::sqrt(x); }},
        {"square", [](double x) { return x * x; }},
        {"abs", [](double x) { return std::abs(x); }},
        {"neg", [](double x) { return -x; }},
        {"reciprocal", [](double x) { return 1 / x; }},
        {"gelu", [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }},
        {"gelu_tanh",
         [pi](double x) {
             return 0.5 * x * (1 + std::tanh(std::sqrt(2 / pi) * (x + 0.044715 * x * x * x)));
         }},
        {"silu", [](double x) { return x / (1 + std::exp(-x)); }},
        {"softplus", [](double x) { return std::log1p(std::exp(x)); }},
        {"sin", [](double x) { return std::sin(x); }},
        {"cos", [](double x) { return std::cos(x); }},
    };
    const std::vector<double> reals = {-700, -30, -5,   -2.5, -1.25, -0.5, -1e-3, 0,
                                       1e-3, 0.5, 1.25, 2.5,  5,     30,   700};
    const std::vector<double> positive = {0, 1e-3, 0.25, 1, 2.5, 30, 700};
    for (DType d : kDtypes)
        for (auto& [name, f] : maps) {
            INFO(name << " " << name_of(d));
            const bool needs_positive = name == "sqrt" || name == "rsqrt";
            std::vector<double> xs = needs_positive ? positive : reals;
            Tile a = from_values(d, {static_cast<std::int64_t>(xs.size())}, xs);
            Tile got = run(name, {&a});
            for (std::int64_t i = 0; i < a.elements(); ++i) {
                INFO("x = " << a.get(i) << ": got " << got.get(i) << ", want " << f(a.get(i)));
                CHECK(close(got.get(i), f(a.get(i)), tolerance(d)));
            }
            CHECK(find_kernel(name)->properties.elementwise);
        }
}

TEST_CASE("silu, softplus and the gelus neither overflow nor cancel at large |x|") {
    // Far past where the naive forms break (exp(1e4) overflows even a double; 1 + erf(-x) and
    // 1 + tanh(-x) cancel to 0 before the true value underflows): each tends to x for large x
    // and to 0 for very negative x, never NaN or inf.
    for (DType d : kDtypes)
        for (const char* name : {"silu", "softplus", "gelu", "gelu_tanh"}) {
            INFO(name << " " << name_of(d));
            Tile a = from_values(d, {4}, {-1e4, -700, 700, 1e4});
            Tile got = run(name, {&a});
            for (std::int64_t i = 0; i < 4; ++i) {
                INFO("x = " << a.get(i) << ": " << got.get(i));
                CHECK(std::isfinite(got.get(i)));
                CHECK(got.get(i) == Approx(a.get(i) > 0 ? a.get(i) : 0.0).margin(1e-30));
            }
        }
    // In the tail the stable forms keep relative accuracy: gelu(-10) = -10 * Phi(-10), about
    // -7.6e-23, and silu(-40) = -40 / (1 + e^40), about -1.7e-16.
    Tile a = from_values(DType::F64, {1}, {-10});
    CHECK(run("gelu", {&a}).get(0) == Approx(-5 * std::erfc(10 / std::sqrt(2.0))).epsilon(1e-12));
    Tile b = from_values(DType::F64, {1}, {-40});
    CHECK(run("silu", {&b}).get(0) == Approx(-40 / (1 + std::exp(40.0))).epsilon(1e-12));
}

TEST_CASE("row_sum, col_sum, diag, transpose match naive loops") {
    for (DType d : kDtypes) {
        INFO(name_of(d));
        Tile a = random_tile(d, {4, 3}, -2, 2, 10);
        require_close(run("row_sum", {&a}), generate(d, {4}, [&](const Shape& i) {
                          return at(a, {i[0], 0}) + at(a, {i[0], 1}) + at(a, {i[0], 2});
                      }));
        require_close(run("col_sum", {&a}), generate(d, {3}, [&](const Shape& i) {
                          double s = 0;
                          for (std::int64_t r = 0; r < 4; ++r) s += at(a, {r, i[0]});
                          return s;
                      }));
        require_close(run("transpose", {&a}), generate(d, {3, 4}, [&](const Shape& i) {
                          return at(a, {i[1], i[0]});
                      }));
        Tile big = random_tile(d, {37, 70}, -2, 2, 11);  // crosses the transpose block size
        require_close(run("transpose", {&big}), generate(d, {70, 37}, [&](const Shape& i) {
                          return at(big, {i[1], i[0]});
                      }));
        Tile sq = random_tile(d, {3, 3}, -2, 2, 12);
        require_close(run("diag", {&sq}), generate(d, {3}, [&](const Shape& i) {
                          return at(sq, {i[0], i[0]});
                      }));
    }
    std::vector<Shape> rect{Shape{3, 4}};
    CHECK(error_of([&] { KernelCall("diag").output_shape(rect); }) ==
          "diag: tile is not square: [3, 4]");
    std::vector<Shape> cube{Shape{2, 2, 2}};
    CHECK(error_of([&] { KernelCall("transpose").output_shape(cube); }) ==
          "transpose: expects a 2-D tile, got [2, 2, 2]");
    CHECK(error_of([&] { KernelCall("row_sum").output_shape(cube); }) ==
          "row_sum: expects a 2-D tile, got [2, 2, 2]");
}

TEST_CASE("softmax_rows is a stable row-wise softmax") {
    for (DType d : kDtypes) {
        Tile a = random_tile(d, {3, 5}, -3, 3, 13);
        Tile want = generate(d, {3, 5}, [&](const Shape& i) {
            double s = 0;
            for (std::int64_t c = 0; c < 5; ++c) s += std::exp(at(a, {i[0], c}));
            return std::exp(at(a, {i[0], i[1]})) / s;
        });
        require_close(run("softmax_rows", {&a}), want);
        Tile huge = from_values(d, {1, 3}, {1000, 1000, 1000});
        Tile s = run("softmax_rows", {&huge});
        for (int i = 0; i < 3; ++i) CHECK(s.get(i) == Approx(1.0 / 3));
    }
    CHECK(find_kernel("softmax_rows")->properties.requires_whole_rows);
}

TEST_CASE("argmin reports the global flat index of the minimum") {
    for (DType d : kDtypes) {
        INFO(name_of(d));
        // Tile (1, 2) of a relation with frontier [2, 3] and bound [2, 4]: the dense tensor is
        // 4 x 12 and local (1, 3) sits at global (3, 11), flat 3 * 12 + 11 = 47.
        Tile t = random_tile(d, {2, 4}, 0, 1, 14);
        t.set(1 * 4 + 3, -5);
        Tile out = run(KernelCall("argmin"), {&t}, {Key{1, 2}, Frontier{2, 3}});
        REQUIRE(out.shape() == Shape{2});
        CHECK(out.get(0) == -5);
        CHECK(out.get(1) == 47);
        // Ties go to the lowest index: local (0, 2) -> global (2, 10) = 34.
        t.set(0 * 4 + 2, -5);
        out = run(KernelCall("argmin"), {&t}, {Key{1, 2}, Frontier{2, 3}});
        CHECK(out.get(1) == 34);
        // A NaN never wins over a number.
        Tile n = from_values(d, {3}, {std::nan(""), 2, 1});
        out = run(KernelCall("argmin"), {&n}, {Key{2}, Frontier{3}});
        CHECK(out.get(0) == 1);
        CHECK(out.get(1) == 8);
        // Rank 0: one element at index 0.
        Tile scalar = from_values(d, {}, {7});
        out = run(KernelCall("argmin"), {&scalar});
        CHECK(out.get(0) == 7);
        CHECK(out.get(1) == 0);
    }
    Tile t = random_tile(DType::F64, {2, 4});
    CHECK(error_of([&] {
              KernelCall("argmin").apply(std::vector<const Tile*>{&t});
          }).find("argmin: the tile has rank 2") == 0);
    CHECK(error_of([&] {
              KernelCall("argmin").apply(std::vector<const Tile*>{&t}, {Key{3, 0}, Frontier{2, 1}});
          }) == "argmin: key (3, 0) lies outside frontier [2, 1]");
    Tile f = random_tile(DType::F32, {1024, 1024});
    CHECK(error_of([&] {
              KernelCall("argmin").apply(std::vector<const Tile*>{&f}, {Key{0, 0}, Frontier{5, 5}});
          }).find("cannot hold exactly") != std::string::npos);
    const KernelProperties& p = find_kernel("argmin")->properties;
    CHECK(p.reads_tile_position);
    CHECK_FALSE(p.aggregation());
}

TEST_CASE("min_index keeps the smaller value, the lower index on ties") {
    for (DType d : kDtypes) {
        Tile a = from_values(d, {2}, {3, 10});
        Tile b = from_values(d, {2}, {2, 20});
        Tile c = from_values(d, {2}, {2, 5});
        Tile nan = from_values(d, {2}, {std::nan(""), 1});
        CHECK(run("min_index", {&a, &b}).get(1) == 20);
        CHECK(run("min_index", {&b, &a}).get(1) == 20);
        CHECK(run("min_index", {&b, &c}).get(1) == 5);
        CHECK(run("min_index", {&c, &b}).get(1) == 5);
        CHECK(run("min_index", {&nan, &a}).get(1) == 10);
        CHECK(run("min_index", {&a, &nan}).get(1) == 10);
    }
    std::vector<Shape> bad{Shape{3}, Shape{2}};
    CHECK(error_of([&] { KernelCall("min_index").output_shape(bad); }) ==
          "min_index: operands must be [2] tiles [value, index], got [3] x [2]");
    const KernelProperties& p = find_kernel("min_index")->properties;
    CHECK(p.aggregation());
    CHECK_FALSE(p.identity);
}

TEST_CASE("argmin aggregated by min_index finds the global argmin") {
    // A 6 x 6 tensor in 2 x 3 tiles; fold the per-tile argmins in a scrambled order.
    Tile whole = random_tile(DType::F64, {6, 6}, 0, 1, 15);
    whole.set(4 * 6 + 1, -1);
    whole.set(5 * 6 + 5, -1);  // a tie; 25 < 35 must win
    std::vector<Tile> partial;
    for (std::int64_t i : {2, 0, 1})
        for (std::int64_t j : {1, 0}) {
            Tile rows = split_tile(whole, 0, 2, i);
            Tile tile = split_tile(rows, 1, 3, j);
            partial.push_back(run(KernelCall("argmin"), {&tile}, {Key{i, j}, Frontier{3, 2}}));
        }
    Tile acc = partial[0];
    for (std::size_t i = 1; i < partial.size(); ++i) acc = run("min_index", {&acc, &partial[i]});
    CHECK(acc.get(0) == -1);
    CHECK(acc.get(1) == 25);
}
