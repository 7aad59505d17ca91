// The non-BLAS kernels on 2 threads give bit for bit what they give on 1 (test_kernels*.cpp
// check them against naive loops on 1): element-wise maps and binaries, sub_row, the row and
// column reductions, softmax, transpose, diagonal, the einsum loop and einsum's permutes, at
// sizes past their grain so that 2 threads split the work; f32 and f64.
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "kernel_fixtures.hpp"
#include "kernels/blas_threads.hpp"
#include "kernels/parallel_for.hpp"

using namespace tra;
using namespace tra::kernels;
using namespace tra::kernel_testing;

namespace {

// The kernel's output on `threads` threads, set as the runtime sets them: the BLAS's count.
Tile run_on(int threads, const std::string& name, std::vector<const Tile*> ops,
            const KernelParams& p) {
    REQUIRE(set_blas_threads(threads));
    REQUIRE(kernel_threads() == threads);
    Tile out = run(name, std::move(ops), p);
    set_blas_threads(1);
    return out;
}

void require_identical(const Tile& a, const Tile& b) {
    REQUIRE(a.shape() == b.shape());
    REQUIRE(a.dtype() == b.dtype());
    for (std::int64_t i = 0; i < a.elements(); ++i) {
        INFO("element " << i);
        // As doubles' bits: f32 widens exactly, and NaN or -0 must match too.
        REQUIRE(std::bit_cast<std::uint64_t>(a.get(i)) == std::bit_cast<std::uint64_t>(b.get(i)));
    }
}

void check_same_on_1_and_2(const std::string& name, std::vector<const Tile*> ops,
                           const KernelParams& p = {}) {
    INFO(name << " " << p.spec << " " << name_of(ops[0]->dtype()));
    require_identical(run_on(1, name, ops, p), run_on(2, name, ops, p));
}

// For einsums with a GEMM: the BLAS's own threads may sum in another order, so only close.
void check_close_on_1_and_2(const std::vector<const Tile*>& ops, const std::string& spec) {
    INFO(spec << " " << name_of(ops[0]->dtype()));
    require_close(run_on(2, "einsum", ops, spec_params(spec)),
                  run_on(1, "einsum", ops, spec_params(spec)));
}

// a b by a naive loop, for a and b of 2 dimensions.
Tile naive_product(const Tile& a, const Tile& b) {
    const std::int64_t depth = a.shape()[1];
    return generate(DType::F64, {a.shape()[0], b.shape()[1]}, [&](const Shape& at_) {
        double sum = 0;
        for (std::int64_t k = 0; k < depth; ++k) sum += at(a, {at_[0], k}) * at(b, {k, at_[1]});
        return sum;
    });
}

}  // namespace

TEST_CASE("element-wise kernels: 1 and 2 threads agree bit for bit", "[kernels][threads]") {
    for (DType d : kDtypes) {
        const Tile a = random_tile(d, {300, 301}, -2, 2, 1),
                   b = random_tile(d, {300, 301}, 1, 2, 2);
        const Tile row = random_tile(d, {301}, -1, 1, 3);
        for (const char* name : {"add", "sub", "mul", "div", "max", "min"})
            check_same_on_1_and_2(name, {&a, &b});
        check_same_on_1_and_2("sub_row", {&a, &row});
        for (const char* name : {"relu", "relu_grad", "sigmoid", "tanh", "exp"})
            check_same_on_1_and_2(name, {&a});
        check_same_on_1_and_2("log", {&b});
        check_same_on_1_and_2("scale", {&a}, factor_params(0.37));
    }
}

TEST_CASE("reductions, transpose, diagonal: 1 and 2 threads agree bit for bit",
          "[kernels][threads]") {
    for (DType d : kDtypes) {
        const Tile m = random_tile(d, {700, 333}, -2, 2, 4);
        for (const char* name : {"row_sum", "col_sum", "softmax_rows", "transpose"})
            check_same_on_1_and_2(name, {&m});
        const Tile cube = random_tile(d, {60, 60, 40}, -2, 2, 5);
        check_same_on_1_and_2("diagonal", {&cube}, spec_params("iij->ji"));
        const Tile wide = random_tile(d, {2000, 3, 3}, -2, 2, 6);
        check_same_on_1_and_2("diagonal", {&wide}, spec_params("jii->ij"));
    }
}

TEST_CASE("einsum's loop and permutes: 1 and 2 threads agree bit for bit", "[kernels][threads]") {
    for (DType d : kDtypes) {
        const Tile a = random_tile(d, {90, 80}, -2, 2, 7), b = random_tile(d, {80, 100}, -2, 2, 8);
        check_same_on_1_and_2("einsum", {&a, &b}, spec_params("ij,jk->ik", "add", "max"));
        check_same_on_1_and_2("einsum", {&a, &b}, spec_params("ij,jk->ki", "sub", "add"));
        const Tile c = random_tile(d, {40, 50, 60}, -2, 2, 9);
        check_same_on_1_and_2("einsum", {&c}, spec_params("ijk->ki"));   // a sum, loop
        check_same_on_1_and_2("einsum", {&c}, spec_params("ijk->kij"));  // a permute
        // Labels summed inside one operand (loop), then a product.
        const Tile t1 = random_tile(d, {64, 64, 30}, -2, 2, 10),
                   t2 = random_tile(d, {30, 70, 70}, -2, 2, 11);
        check_close_on_1_and_2({&t1, &t2}, "ixj,jky->ik");
        // Batch last: both operands and the product permuted around a batched GEMM (the
        // permutes alone: test_tile_permute.cpp).
        const Tile x = random_tile(d, {40, 50, 16}, -2, 2, 12),
                   y = random_tile(d, {50, 60, 16}, -2, 2, 13);
        check_close_on_1_and_2({&x, &y}, "ijb,jkb->ikb");
    }
}

TEST_CASE("OpenBLAS's threads, ended for a shorter idle spin, come back for the next product",
          "[kernels][threads]") {
    const char* before = std::getenv("OPENBLAS_THREAD_TIMEOUT");
    const std::string users = before ? before : "";
    const bool set = limit_blas_spin_wait();
    // The user's value stands; otherwise OpenBLAS's pthreads build is given the shorter one.
    if (before) {
        REQUIRE_FALSE(set);
        REQUIRE(std::string(std::getenv("OPENBLAS_THREAD_TIMEOUT")) == users);
    } else if (set) {
        REQUIRE(std::string(std::getenv("OPENBLAS_THREAD_TIMEOUT")) == "20");
    }
    // A product large enough for OpenBLAS to split among its 2 threads, against a naive loop.
    const Tile a = random_tile(DType::F64, {300, 200}, -1, 1, 20),
               b = random_tile(DType::F64, {200, 250}, -1, 1, 21);
    const Tile want = naive_product(a, b);
    for (int round = 0; round < 3; ++round) require_close(run_on(2, "matmul", {&a, &b}, {}), want);
}

TEST_CASE("BLAS calls on their calling thread alone, and the BLAS's threads back after",
          "[kernels][threads]") {
    REQUIRE(set_blas_threads(2));
    {
        const BlasOnCallingThread one;
        // Debian's OpenBLAS is its pthreads build, which allows it; its OpenMP build does not,
        // and is left alone.
        if (one.active())
            CHECK(blas_threads() == 1);
        else
            CHECK(blas_threads() == 2);
        // A product that 2 threads would split, on the caller alone, against a naive loop.
        const Tile a = random_tile(DType::F64, {300, 200}, -1, 1, 22),
                   b = random_tile(DType::F64, {200, 250}, -1, 1, 23);
        require_close(run("matmul", {&a, &b}, {}), naive_product(a, b));
    }
    // The rank's count again: a kernel run after it splits its work as before.
    CHECK(kernel_threads() == 2);
    CHECK(blas_threads() == 2);
    set_blas_threads(1);
}
