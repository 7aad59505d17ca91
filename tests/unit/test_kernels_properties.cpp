// Algebraic properties the registry declares (commutative, associative, distributes over,
// zero-preserving), checked numerically.
#include "kernel_fixtures.hpp"

using namespace tra;
using namespace tra::kernels;
using namespace tra::kernel_testing;

namespace {

// Operand shape for property checks: square where a kernel needs it, [2] for min_index.
Shape property_shape(const std::string& name) {
    if (name.rfind("matmul", 0) == 0 || name == "diag") return {3, 3};
    if (name == "min_index") return {2};
    return {3, 4};
}

Tile property_operand(DType d, const std::string& name, unsigned seed) {
    // Mixed signs so a property that holds only for positive values fails; log and sqrt alone
    // need positive values (their properties hold on their domain). min_index gets [value,
    // integer index] pairs with repeated values so ties happen.
    if (name == "min_index") return from_values(d, {2}, {double(seed % 2), double(seed % 5)});
    const bool positive = name == "log" || name == "sqrt";
    return random_tile(d, property_shape(name), positive ? 0.25 : -2, 2, seed);
}

Tile call(const std::string& name, std::vector<const Tile*> ops) {
    return run(name, std::move(ops), factor_params(0.5));
}

// A call of a kernel on operands of these shapes, at `where`.
struct ZeroCase {
    KernelCall call;
    std::vector<Shape> shapes;
    TilePosition where;
};

// Calls of each kernel that fit tiles of zeros. Einsum and diagonal take a spec; einsum's
// f(0) = 0 depends on its join, so it gets a call of each kind.
std::vector<ZeroCase> zero_cases(const Kernel& k) {
    const std::string& n = k.name;
    if (n == "einsum")
        return {{KernelCall(n, spec_params("ik,kj->ij")), {{3, 2}, {2, 4}}, {}},
                {KernelCall(n, spec_params("ij,j->i", "sub", "max")), {{3, 4}, {4}}, {}},
                {KernelCall(n, spec_params("ij,ij->ij", "div", "add")), {{3, 4}, {3, 4}}, {}},
                {KernelCall(n, spec_params("ik,kj->ij", "div", "min")), {{3, 2}, {2, 4}}, {}},
                {KernelCall(n, spec_params("ij->i", "mul", "mul")), {{3, 4}}, {}},
                // A unary spec ignores the join, div included.
                {KernelCall(n, spec_params("ij->j", "div", "add")), {{3, 4}}, {}}};
    if (n == "diagonal") return {{KernelCall(n, spec_params("iij->ij")), {{3, 3, 2}}, {}}};
    // argmin away from the origin: a zero tile's index is then not 0.
    if (n == "argmin") return {{KernelCall(n), {{2, 4}}, {Key{1, 2}, Frontier{2, 3}}}};
    if (n == "sub_row") return {{KernelCall(n), {{3, 4}, {4}}, {}}};
    if (n == "fill_padding") {  // columns 4..7 of a tensor 6 wide: the last two are padding
        KernelParams p = spec_params("1:6");
        p.factor = -kInf;
        return {{KernelCall(n, p), {{3, 4}}, {Key{0, 1}, Frontier{1, 2}}}};
    }
    // An expression's f(0) = 0 depends on its text: some of each kind.
    const auto expr = [](const char* kernel, const char* text) {
        KernelParams p;
        p.expr = text;
        return KernelCall(kernel, p);
    };
    if (n == "expr")
        return {{expr("expr", "x * rsqrt(x * x + 1e-6)"), {{3, 4}}, {}},
                {expr("expr", "exp(x) - 1"), {{3, 4}}, {}},
                {expr("expr", "sigmoid(x)"), {{3, 4}}, {}},
                {expr("expr", "log(x)"), {{3, 4}}, {}},
                {expr("expr", "x / x"), {{3, 4}}, {}}};
    if (n == "expr_join")
        return {{expr("expr_join", "(a - b) * (a - b)"), {{3, 4}, {3, 4}}, {}},
                {expr("expr_join", "a / b"), {{3, 4}, {3, 4}}, {}},
                {expr("expr_join", "a - b + 1"), {{3, 4}, {3, 4}}, {}}};
    std::vector<Shape> shapes(static_cast<std::size_t>(k.arity), property_shape(n));
    return {{KernelCall(n, n == "scale" ? factor_params(0.5) : KernelParams{}), shapes, {}}};
}

}  // namespace

TEST_CASE("zero_preserving says what a kernel makes of tiles of zeros") {
    // Every kernel, so a declaration that is wrong either way fails here.
    for (const Kernel* k : all_kernels())
        for (const ZeroCase& c : zero_cases(*k))
            for (DType d : kDtypes) {
                INFO(c.call.str() << " " << name_of(d));
                std::vector<Tile> zeros;
                for (const Shape& s : c.shapes) zeros.push_back(filled(d, s, 0.0));
                std::vector<const Tile*> ops;
                for (const Tile& t : zeros) ops.push_back(&t);
                Tile out = run(c.call, ops, c.where);
                REQUIRE(out.elements() > 0);
                bool all_zero = true;
                for (std::int64_t i = 0; i < out.elements(); ++i)
                    all_zero = all_zero && out.get(i) == 0.0;  // NaN is not 0
                CHECK(c.call.properties().zero_preserving == all_zero);
            }
    // The kernel-wide answer of a kernel whose calls differ is the safe one.
    CHECK_FALSE(find_kernel("einsum")->properties.zero_preserving);
}

TEST_CASE("finite says a kernel keeps finite operands finite") {
    // Every kernel, on zeros and on values of both signs: a kernel that declares `finite` gives
    // only finite values (padding is followed through products on that claim, tiling_classes),
    // and those that make infinities or NaN of such operands (log(0), sqrt(-1), 1 / 0, 0 / 0)
    // do not declare it.
    for (const Kernel* k : all_kernels())
        for (const ZeroCase& c : zero_cases(*k))
            for (DType d : kDtypes) {
                INFO(c.call.str() << " " << name_of(d));
                bool all_finite = true;
                for (const double lo : {0.0, -2.0}) {
                    std::vector<Tile> tiles;
                    unsigned seed = 3;
                    for (const Shape& s : c.shapes)
                        tiles.push_back(lo == 0.0 ? filled(d, s, 0.0)
                                                  : random_tile(d, s, lo, 2.0, seed++));
                    std::vector<const Tile*> ops;
                    for (const Tile& t : tiles) ops.push_back(&t);
                    const Tile out = run(c.call, ops, c.where);
                    for (std::int64_t i = 0; i < out.elements(); ++i)
                        all_finite = all_finite && std::isfinite(out.get(i));
                }
                if (c.call.properties().finite) CHECK(all_finite);
            }
    for (const char* n : {"log", "sqrt", "rsqrt", "reciprocal", "div", "fill_padding"})
        CHECK_FALSE(find_kernel(n)->properties.finite);
    for (const char* n : {"add", "sub", "mul", "max", "min", "matmul", "sigmoid", "exp", "relu"})
        CHECK(find_kernel(n)->properties.finite);
    CHECK_FALSE(KernelCall("einsum", spec_params("ij,ij->ij", "div", "add")).properties().finite);
    CHECK(KernelCall("einsum", spec_params("ik,kj->ij")).properties().finite);
}

TEST_CASE("algebraic properties hold numerically") {
    for (DType d : kDtypes)
        for (const Kernel* k : all_kernels()) {
            const std::string& f = k->name;
            const KernelProperties& p = k->properties;
            INFO(f << " " << name_of(d));
            if (f == "einsum") {
                CHECK_FALSE(p.associative);
                CHECK(p.distributes_over.empty());
                continue;
            }
            if (f == "diagonal") continue;  // needs a spec: test_kernels_diagonal.cpp checks it
            // Need an expression, and declare none of these: test_kernels_expression.cpp.
            if (f == "expr" || f == "expr_join") continue;
            for (unsigned s = 0; s < 6; ++s) {
                Tile a = property_operand(d, f, 31 + s), b = property_operand(d, f, 37 + 2 * s),
                     c = property_operand(d, f, 41 + 3 * s);
                if (p.commutative) require_close(call(f, {&a, &b}), call(f, {&b, &a}));
                if (p.associative) {
                    Tile ab = call(f, {&a, &b}), bc = call(f, {&b, &c});
                    require_close(call(f, {&ab, &c}), call(f, {&a, &bc}));
                }
                if (p.identity) {
                    Tile e = filled(d, a.shape(), *p.identity);
                    require_close(call(f, {&e, &a}), a);
                    require_close(call(f, {&a, &e}), a);
                }
                if (p.annihilator) {
                    Tile z = filled(d, a.shape(), *p.annihilator);
                    require_close(call(f, {&z, &a}), z);
                    require_close(call(f, {&a, &z}), z);
                }
                for (const std::string& g : p.distributes_over) {
                    INFO("distributes over " << g);
                    const Kernel* gk = find_kernel(g);
                    REQUIRE(gk);
                    CHECK(gk->properties.aggregation());
                    Tile gab = call(g, {&a, &b});
                    if (k->arity == 1) {
                        Tile fa = call(f, {&a}), fb = call(f, {&b});
                        require_close(call(f, {&gab}), call(g, {&fa, &fb}));
                    } else {
                        Tile fac = call(f, {&a, &c}), fbc = call(f, {&b, &c});
                        require_close(call(f, {&gab, &c}), call(g, {&fac, &fbc}));
                        Tile fca = call(f, {&c, &a}), fcb = call(f, {&c, &b});
                        require_close(call(f, {&c, &gab}), call(g, {&fca, &fcb}));
                    }
                }
            }
        }
}

TEST_CASE("declared properties") {
    auto props = [](const std::string& n) { return find_kernel(n)->properties; };
    CHECK(props("matmul").associative);
    CHECK_FALSE(props("matmul").commutative);
    CHECK_FALSE(props("matmul_tn").associative);
    CHECK(props("matmul").distributes_over == std::vector<std::string>{"add"});
    for (const char* n : {"add", "mul", "max", "min", "min_index"}) CHECK(props(n).aggregation());
    for (const char* n : {"sub", "div", "matmul", "sub_row", "scale", "einsum"})
        CHECK_FALSE(props(n).aggregation());
    CHECK(props("add").identity == 0.0);
    CHECK(props("mul").identity == 1.0);
    CHECK(props("mul").annihilator == 0.0);
    CHECK(props("max").identity == -kInf);
    CHECK(props("min").identity == kInf);
    CHECK(props("add").distributes_over == std::vector<std::string>{"max", "min"});
    CHECK(props("mul").distributes_over == std::vector<std::string>{"add"});
    CHECK(props("scale").distributes_over == std::vector<std::string>{"add"});
    CHECK_FALSE(props("sub").identity);
    CHECK(props("sub").distributes_over.empty());
    CHECK(find_kernel("einsum")->arity == 2);
    // The named maps: nondecreasing ones commute with max and min, neg is linear, and the
    // others (decreasing, or falling and rising) list nothing. The loop above checks the lists
    // numerically (the claims made); these pin the lists down (the claims left out).
    const std::vector<std::string> max_min = {"max", "min"};
    CHECK(props("sqrt").distributes_over == max_min);
    CHECK(props("softplus").distributes_over == max_min);
    CHECK(props("neg").distributes_over == std::vector<std::string>{"add"});
    for (const char* n :
         {"rsqrt", "square", "abs", "reciprocal", "gelu", "gelu_tanh", "silu", "sin", "cos"})
        CHECK(props(n).distributes_over.empty());
}

TEST_CASE("accumulating and distributing calls") {
    const KernelCall add("add"), max("max");
    for (const char* n : {"matmul", "matmul_tn", "matmul_nt", "matmul_tt"}) {
        INFO(n);
        CHECK(KernelCall(n).can_accumulate_into(add));
        CHECK_FALSE(KernelCall(n).can_accumulate_into(max));
        CHECK(KernelCall(n).distributes_over(add));
        CHECK_FALSE(KernelCall(n).distributes_over(max));
    }
    CHECK(KernelCall("einsum", spec_params("ik,kj->ij")).can_accumulate_into(add));
    for (const char* n : {"add", "mul", "max", "sub"})
        CHECK_FALSE(KernelCall(n).can_accumulate_into(add));
    CHECK(KernelCall("mul").distributes_over(add));
    CHECK_FALSE(KernelCall("max").distributes_over(add));
    // accumulate and the kernel it folds with come together, and that kernel aggregates.
    for (const Kernel* k : all_kernels()) {
        INFO(k->name);
        CHECK(static_cast<bool>(k->accumulate) == !k->properties.accumulates_with.empty());
        if (k->accumulate) {
            const Kernel* g = find_kernel(k->properties.accumulates_with);
            REQUIRE(g);
            CHECK(g->properties.aggregation());
        }
    }
}
