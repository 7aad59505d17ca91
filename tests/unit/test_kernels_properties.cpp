// Algebraic properties the registry declares (commutative, associative, distributes over),
// checked numerically.
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
    // Mixed signs so a property that holds only for positive values fails; log alone needs
    // positive values. min_index gets [value, integer index] pairs with repeated values so ties
    // happen.
    if (name == "min_index") return from_values(d, {2}, {double(seed % 2), double(seed % 5)});
    return random_tile(d, property_shape(name), name == "log" ? 0.25 : -2, 2, seed);
}

Tile call(const std::string& name, std::vector<const Tile*> ops) {
    return run(name, std::move(ops), factor_params(0.5));
}

}  // namespace

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
