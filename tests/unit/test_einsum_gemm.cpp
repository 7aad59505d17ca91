// The einsum kernel's BLAS path: every contraction with join mul and agg add (batched with the
// batch labels anywhere, transposed, runs of labels as one dimension in any order, dot and outer
// products, labels summed inside one operand) equals a naive sum over all labels, in f64 and
// f32, applied and accumulated; operands are used in place where BLAS can read them.
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "core/tile.hpp"
#include "einsum_gemm_fixtures.hpp"
#include "kernels/einsum_gemm.hpp"
#include "kernels/kernel.hpp"
#include "kernels/parallel_for.hpp"

using namespace tra;
using namespace tra::kernels;
using namespace tra::testing;

TEST_CASE("einsum: 2-D matrix products with every transpose", "[einsum][gemm]") {
    std::map<char, std::int64_t> e{{'i', 5}, {'k', 7}, {'j', 3}};
    for (const char* a : {"ik", "ki"})
        for (const char* b : {"kj", "jk"})
            for (const char* o : {"ij", "ji"}) check_spec(a, b, o, e);
}

TEST_CASE("einsum: batched, grouped, dot and outer products go through BLAS", "[einsum][gemm]") {
    std::map<char, std::int64_t> e{{'b', 3}, {'c', 2}, {'i', 4}, {'j', 5}, {'k', 6}, {'l', 3}};
    check_spec("bik", "bkj", "bij", e);     // batched
    check_spec("bki", "bjk", "bji", e);     // batched, both transposed, output swapped
    check_spec("bcik", "bckj", "bcij", e);  // two batch labels
    check_spec("ijk", "kl", "ijl", e);      // rows i,j as one dimension
    check_spec("ikl", "klj", "ij", e);      // contraction over the run k,l
    check_spec("ik", "kjl", "ijl", e);      // columns j,l as one dimension
    check_spec("bk", "bk", "b", e);         // row-wise dot ("ne,ne->n")
    check_spec("k", "k", "", e);            // a plain dot product
    check_spec("i", "j", "ij", e);          // outer product
    check_spec("bi", "bj", "bij", e);       // batched outer product
    check_spec("ik", "kj", "ij", {{'i', 1}, {'k', 9}, {'j', 1}});  // 1 x 1 output
}

TEST_CASE("einsum: many dots, split among kernel threads, equal the naive sums", "[einsum][gemm]") {
    // 3000 row-wise dots of 7 (three of four sums and a tail) and 9000 of 2 (the tail only):
    // enough batches to be split among 1, 2 and 3 threads; strided dots ("en,en->n") too.
    for (int threads : {1, 2, 3}) {
        INFO("threads " << threads);
        set_kernel_threads(threads);
        check_spec("bk", "bk", "b", {{'b', 3000}, {'k', 7}});
        check_spec("bk", "bk", "b", {{'b', 9000}, {'k', 2}});
        check_spec("kb", "kb", "b", {{'b', 3000}, {'k', 7}});
        check_spec("cbk", "cbk", "cb", {{'c', 3}, {'b', 1000}, {'k', 5}});
    }
    set_kernel_threads(1);
}

TEST_CASE("einsum: batched products shared among kernel threads equal the naive sums",
          "[einsum][gemm]") {
    // Each thread's BLAS calls on one BLAS thread, side by side: batches that share out evenly
    // (12 among 2 and 3) or nearly (25 among 3: 8 or more each), batch labels leading, in the
    // middle and permuted away (TTGT), applied and accumulated.
    for (int threads : {1, 2, 3}) {
        INFO("threads " << threads);
        set_kernel_threads(threads);
        check_spec("bik", "bkj", "bij", {{'b', 12}, {'i', 9}, {'k', 7}, {'j', 5}});
        check_spec("ibk", "kbj", "ibj", {{'b', 25}, {'i', 6}, {'k', 4}, {'j', 3}});
        check_spec("kib", "jbk", "bji", {{'b', 12}, {'i', 5}, {'k', 3}, {'j', 4}});
    }
    set_kernel_threads(1);
    REQUIRE(plan("bik", "bkj", "bij", {{'b', 12}, {'i', 9}, {'k', 7}, {'j', 5}}).batches() == 12);
    const cpu::GemmPlan ttgt = plan("kib", "jbk", "bji", {{'b', 12}, {'i', 5}, {'k', 3}, {'j', 4}});
    REQUIRE((ttgt.lanes == 1 && ttgt.batches() == 12 && !ttgt.a.perm.empty()));
}

TEST_CASE("einsum: batches are shared among threads where they share out evenly or are many",
          "[einsum][gemm]") {
    const std::map<char, std::int64_t> e{{'i', 8}, {'k', 8}, {'j', 8}};
    auto batched = [&](std::int64_t batches) {
        std::map<char, std::int64_t> with = e;
        with['b'] = batches;
        return plan("bik", "bkj", "bij", with);
    };
    CHECK(cpu::batch_threads(batched(64), 1) == 1);  // one thread: nothing to share
    CHECK(cpu::batch_threads(batched(64), 2) == 2);  // 32 each
    CHECK(cpu::batch_threads(batched(6), 4) == 1);   // 2 and 1 each: calls in turn
    CHECK(cpu::batch_threads(batched(8), 4) == 4);   // 2 each
    CHECK(cpu::batch_threads(batched(33), 4) == 4);  // 9 or 8 each
    CHECK(cpu::batch_threads(batched(31), 4) == 1);  // 8 or 7 each, not a multiple
    CHECK(cpu::batch_threads(batched(1), 2) == 1);   // one call: its own BLAS threads
    CHECK(cpu::batch_threads(plan("ik", "kj", "ij", e), 2) == 1);
    // Dots (split their own way, no BLAS call) and lanes (the lanes product uses the threads).
    CHECK(cpu::batch_threads(plan("bk", "bk", "b", {{'b', 64}, {'k', 8}}), 2) == 1);
    const cpu::GemmPlan lanes = plan("ikb", "kjb", "ijb", {{'b', 8}, {'i', 8}, {'k', 8}, {'j', 8}});
    REQUIRE(lanes.lanes == 8);
    CHECK(cpu::batch_threads(lanes, 2) == 1);
}

TEST_CASE("einsum: batch labels anywhere, split runs and one-operand sums", "[einsum][gemm]") {
    std::map<char, std::int64_t> e{{'b', 3}, {'c', 2}, {'i', 4}, {'j', 5}, {'k', 6}, {'l', 3}};
    check_spec("ibk", "bkj", "bij", e);   // batch label not leading in an operand
    check_spec("bik", "bkj", "ijb", e);   // batch label last in the output
    check_spec("ikb", "kjb", "ijb", e);   // batch label last everywhere
    check_spec("ibk", "kbj", "ibj", e);   // batch label in the middle everywhere
    check_spec("bij", "jbk", "bik", e);   // the batched product of issue 19
    check_spec("ikj", "kj", "ij", e);     // j in both operands and the output, not leading
    check_spec("bic", "cbj", "jci", e);   // batch c and inner b in different orders
    check_spec("bic", "cbj", "cjbi", e);  // batch b,c in different orders everywhere
    check_spec("ikj", "k", "i", e);       // j summed inside the first operand alone
    check_spec("ik", "jkl", "ij", e);     // l summed inside the second operand alone
    check_spec("kil", "kjl", "ij", e);    // the inner run k..l split by i and j
    check_spec("kil", "ljk", "ji", e);    // the inner run in different orders
    check_spec("ib", "jb", "bji", e);     // batched outer product, batch last in the operands
    check_spec("i", "j", "ji", e);        // transposed outer product
}

TEST_CASE("einsum: every label order of attention and 4-D contractions", "[einsum][gemm]") {
    std::map<char, std::int64_t> e{{'s', 5}, {'t', 4}, {'h', 3}, {'d', 6}};
    for (const std::string& a : orders_of("shd"))
        for (const std::string& o : orders_of("hst")) check_spec(a, "thd", o, e);
    std::map<char, std::int64_t> f{{'a', 2}, {'b', 3}, {'c', 4}, {'d', 2}, {'e', 3}, {'f', 2}};
    for (const char* a : {"abcd", "acbd", "dcba", "cadb"})
        for (const char* b : {"cdef", "dcef", "efdc", "edcf"})
            for (const char* o : {"abef", "feab", "aebf"}) check_spec(a, b, o, f);
}

TEST_CASE("einsum: operands are used in place where BLAS can read them", "[einsum][gemm]") {
    std::map<char, std::int64_t> e{{'s', 8}, {'t', 8}, {'h', 4}, {'d', 16},
                                   {'b', 3}, {'i', 5}, {'j', 6}, {'k', 7}};
    CHECK(permuted("shd", "thd", "hst", e) == 0);  // strided GEMMs, one per head
    CHECK(permuted("bij", "jbk", "bik", e) == 0);
    CHECK(permuted("ki", "jk", "ji", e) == 0);     // transposes are BLAS flags
    CHECK(permuted("ibk", "bkj", "bij", e) == 0);  // rows i at stride b*k
    CHECK(permuted("ikb", "kjb", "ijb", e) > 0);   // no unit stride in any matrix
    std::map<char, std::int64_t> f{{'a', 2}, {'b', 3}, {'c', 4}, {'d', 5}, {'e', 6}, {'f', 7}};
    CHECK(permuted("abcd", "cdef", "abef", f) == 0);
    // a,b split by c in the first operand: it is permuted, and one of the second operand
    // (e,f) and the output (f,e) too, the smaller (the output: 2*3*6*7 < 4*5*6*7).
    CHECK(permuted("acbd", "dcef", "feab", f) == 2 * 3 * 4 * 5 + 2 * 3 * 6 * 7);
}

TEST_CASE("einsum: permuted operands are laid out for BLAS to read untransposed",
          "[einsum][gemm]") {
    // kbi holds the rows (i) innermost, so BLAS computes the product's transpose, B^T A^T: jkb,
    // permuted anyway, is laid out [b][k][j], B^T row-major.
    const std::map<char, std::int64_t> e{{'b', 3}, {'i', 5}, {'j', 6}, {'k', 7}};
    const kernels::cpu::GemmPlan t = plan("bji", "jkb", "kbi", e);
    CHECK(t.a.perm.empty());
    REQUIRE(!t.b.perm.empty());
    CHECK(t.b.rows_stride == 1);  // along j
    CHECK(t.b.cols_stride == 6);  // along k
    // A row-major output: the canonical [b][j][k]; and always on the GPU (canonical order).
    for (const kernels::cpu::GemmPlan& p :
         {plan("bji", "jkb", "bik", e), plan("bji", "jkb", "kbi", e, true)}) {
        REQUIRE(!p.b.perm.empty());
        CHECK(p.b.rows_stride == 7);
        CHECK(p.b.cols_stride == 1);
    }
    check_spec("bji", "jkb", "kbi", e);
    check_spec("jbi", "jkb", "kbi", e);
}

TEST_CASE("einsum: batch labels innermost everywhere run as SIMD lanes", "[einsum][gemm]") {
    std::map<char, std::int64_t> e{{'a', 2}, {'b', 8}, {'c', 4}, {'i', 5}, {'j', 6},
                                   {'k', 7}, {'s', 9}, {'t', 7}, {'d', 5}, {'h', 8}};
    // BLAS reads none of these matrices: the lanes product computes b (or h) side by side.
    CHECK(plan("ikb", "kjb", "ijb", e).lanes == 8);
    CHECK(permuted("ikb", "kjb", "ijb", e) == 0);
    CHECK(plan("dsh", "dth", "tsh", e).lanes == 8);
    CHECK(plan("aikb", "akjb", "aijb", e).lanes == 8);   // a outer batch, b lanes
    CHECK(plan("ikcb", "kjcb", "ijcb", e).lanes == 32);  // a run of two lane labels
    // Innermost lanes are read in place however many (5000 here, beyond the span allowed to
    // lanes apart).
    CHECK(permuted("ikb", "kjb", "ijb", {{'i', 2}, {'j', 2}, {'k', 2}, {'b', 5000}}) == 0);
    CHECK(plan("ikb", "kjb", "ijb", e, true).lanes == 1);  // the GPU's plan permutes
    // Heads innermost in the output only: the operands are read with their heads apart (d
    // elements, packing gathers them), where BLAS would permute the product (9*7*8).
    const std::map<char, std::int64_t> short_d{{'s', 9}, {'t', 7}, {'d', 2}, {'h', 8}};
    CHECK(plan("shd", "thd", "sth", short_d).lanes == 8);
    CHECK(permuted("shd", "thd", "sth", short_d) == 0);
    CHECK(plan("shd", "thd", "sth", e).lanes == 8);
    CHECK(permuted("hsd", "tdh", "tsh", short_d) == 0);  // A's heads 9*2 apart
    // Lanes spanning more than 4096 elements of an operand are permuted first: A's heads
    // 64*65 apart, to [s][d][h] (64*65*8 elements, less than BLAS's B and product, 40*65*8 +
    // 40*64*8).
    const std::map<char, std::int64_t> long_sd{{'s', 64}, {'t', 40}, {'d', 65}, {'h', 8}};
    CHECK(plan("hsd", "tdh", "tsh", long_sd).lanes == 8);
    CHECK(permuted("hsd", "tdh", "tsh", long_sd) == 64 * 65 * 8);
    // b innermost in both operands: the product is computed as [i][j][b] and permuted, not both
    // operands for BLAS.
    CHECK(plan("ikb", "kjb", "ibj", e).lanes == 8);
    CHECK(permuted("ikb", "kjb", "ibj", e) == 5 * 6 * 8);
    // b outermost in both operands: read in place with their lanes 35 and 42 elements apart;
    // with 64^3 matrices 4096 apart, too far: permuting the product for BLAS moves less than
    // permuting both operands for the lanes product.
    CHECK(plan("bik", "bkj", "ijb", e).lanes == 8);
    CHECK(permuted("bik", "bkj", "ijb", e) == 0);
    const std::map<char, std::int64_t> wide{{'b', 8}, {'i', 64}, {'j', 64}, {'k', 64}};
    CHECK(plan("bik", "bkj", "ijb", wide).lanes == 1);
    CHECK(permuted("bik", "bkj", "ijb", wide) == 64 * 64 * 8);
    CHECK(plan("bik", "bkj", "bij", e).lanes == 1);  // BLAS reads these in place
    CHECK(plan("ikb", "kjb", "ijb", {{'i', 5}, {'j', 6}, {'k', 7}, {'b', 4}}).lanes == 1);
    check_spec("ikb", "kjb", "ijb", e);        // batch last everywhere
    check_spec("kib", "jkb", "jib", e);        // and transposed
    check_spec("dsh", "dth", "tsh", e);        // attention with the heads innermost
    check_spec("aikb", "akjb", "iajb", e);     // an outer batch label, at other strides
    check_spec("ikcb", "kjcb", "ijcb", e);     // two lane labels
    check_spec("ib", "jb", "ijb", e);          // an outer product: no inner labels
    check_spec("kb", "kb", "b", e);            // dot products, one per lane
    check_spec("shd", "thd", "sth", short_d);  // both operands' heads apart
    check_spec("shd", "thd", "sth", e);
    check_spec("hsd", "tdh", "tsh", short_d);  // one of them
    check_spec("hsd", "tdh", "tsh", long_sd);  // too far apart: A permuted
    check_spec("ikb", "kjb", "ibj", e);        // the product permuted after
    check_spec("bik", "bkj", "ijb", e);        // lanes outermost in both operands
    check_spec("ikcb", "kjbc", "icjb", e);     // lanes of an operand, the others permuted
    std::map<char, std::int64_t> tail{{'b', 11}, {'i', 50}, {'j', 13}, {'k', 130}};
    check_spec("ikb", "kjb", "ijb", tail);  // a lane tail, edge tiles, two inner blocks
}

TEST_CASE("einsum: empty extents give zeros or empty tiles", "[einsum][gemm]") {
    check_spec("ik", "kj", "ij", {{'i', 3}, {'k', 0}, {'j', 2}});
    check_spec("bk", "bk", "b", {{'b', 3}, {'k', 0}});
    check_spec("bik", "bkj", "bij", {{'b', 0}, {'i', 2}, {'k', 3}, {'j', 2}});
}
