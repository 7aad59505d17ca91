// The cache-blocked tile permute against a naive loop over every output index: ranks 2 to 5,
// every permutation up to rank 4 (some of rank 5), extents of 1 and past the block size, f32 and
// f64, written and accumulated; every path (runs copied; blocks whose input rows lie apart,
// transposed in registers; blocks of one run, narrow and wide) at sizes split among 2 threads,
// equal to 1 thread's result, outputs large enough for non-temporal stores among them; the
// in-register transpose of a block's rows alone; and parallel_for's chunks.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <numeric>
#include <random>
#include <vector>

#include "kernels/parallel_for.hpp"
#include "kernels/tile_permute.hpp"
#include "kernels/transpose_rows.hpp"

using namespace tra;

namespace {

// out[j] with j's multi-index (i[perm[0]], ..., i[perm[r-1]]) = in[i], by unravelling each i.
template <class T>
std::vector<T> naive_permute(const std::vector<T>& in, const Shape& shape,
                             const std::vector<std::size_t>& perm) {
    const std::size_t rank = shape.size();
    std::vector<T> out(in.size());
    for (std::size_t flat = 0; flat < in.size(); ++flat) {
        std::vector<std::int64_t> idx(rank);
        std::int64_t rest = static_cast<std::int64_t>(flat);
        for (std::size_t d = rank; d-- > 0;) {
            idx[d] = rest % shape[d];
            rest /= shape[d];
        }
        std::int64_t to = 0;
        for (std::size_t d = 0; d < rank; ++d) to = to * shape[perm[d]] + idx[perm[d]];
        out[static_cast<std::size_t>(to)] = in[flat];
    }
    return out;
}

template <class T>
void check(const Shape& shape, const std::vector<std::size_t>& perm) {
    std::mt19937 gen(7);
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<T> in(static_cast<std::size_t>(shape.product()));
    for (T& x : in) x = static_cast<T>(dist(gen));
    const std::vector<T> want = naive_permute(in, shape, perm);
    std::vector<T> out(in.size(), T(-7));
    kernels::permute<T>(in.data(), shape, perm, out.data());
    REQUIRE(out == want);
    std::vector<T> acc(in.size());
    for (T& x : acc) x = static_cast<T>(dist(gen));
    std::vector<T> expect = acc;
    for (std::size_t i = 0; i < acc.size(); ++i) expect[i] += want[i];
    kernels::permute<T>(in.data(), shape, perm, acc.data(), true);
    REQUIRE(acc == expect);
}

void check_all_orders(const Shape& shape, std::size_t limit) {
    std::vector<std::size_t> perm(shape.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::size_t n = 0;
    do {
        INFO("shape " << shape.str() << " perm " << [&] {
            std::string s;
            for (std::size_t d : perm) s += std::to_string(d);
            return s;
        }());
        check<double>(shape, perm);
        check<float>(shape, perm);
    } while (std::next_permutation(perm.begin(), perm.end()) && ++n < limit);
}

// transpose_rows on nq rows (at a stride of np + 3, so they do not line up) into a buffer with
// rows of ld, against the loop; the buffer's padding stays untouched.
template <class T>
void check_transpose_rows(std::int64_t nq, std::int64_t np) {
    INFO(nq << " rows of " << np << ", " << sizeof(T) * 8 << " bits");
    const std::int64_t stride = np + 3, ld = nq + 5;
    std::vector<T> in(static_cast<std::size_t>(nq * stride));
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<T>(i % 1009) - T(500);
    std::vector<const T*> rows;
    for (std::int64_t j = 0; j < nq; ++j) rows.push_back(in.data() + j * stride);
    std::vector<T> buf(static_cast<std::size_t>(np * ld), T(-1)), want = buf;
    for (std::int64_t i = 0; i < np; ++i)
        for (std::int64_t j = 0; j < nq; ++j)
            want[static_cast<std::size_t>(i * ld + j)] =
                in[static_cast<std::size_t>(j * stride + i)];
    kernels::transpose_rows(rows.data(), nq, np, buf.data(), ld);
    REQUIRE(buf == want);
}

}  // namespace

TEST_CASE("transpose_rows: whole register blocks and ragged edges", "[permute]") {
    for (std::int64_t nq : {1, 3, 4, 8, 13, 128})
        for (std::int64_t np : {1, 4, 7, 8, 17, 64, 128}) {
            check_transpose_rows<double>(nq, np);
            check_transpose_rows<float>(nq, np);
        }
}

TEST_CASE("permute: rank 2, square and ragged past the block", "[permute]") {
    check_all_orders(Shape{37, 70}, 100);
    check_all_orders(Shape{1, 9}, 100);
    check_all_orders(Shape{64, 64}, 100);
}

TEST_CASE("permute: ranks 3 and 4, every order", "[permute]") {
    check_all_orders(Shape{5, 33, 7}, 100);
    check_all_orders(Shape{3, 1, 40, 2}, 100);
    check_all_orders(Shape{4, 5, 6, 35}, 100);
}

TEST_CASE("permute: rank 5", "[permute]") {
    check_all_orders(Shape{3, 4, 2, 5, 6}, 120);
    check<double>(Shape{2, 3, 4, 5, 6}, {4, 3, 2, 1, 0});
    check<float>(Shape{2, 3, 1, 5, 6}, {2, 4, 0, 3, 1});
}

TEST_CASE("permute: empty and one-element tiles", "[permute]") {
    check<double>(Shape{0, 3}, {1, 0});
    check<double>(Shape{1, 1, 1}, {2, 0, 1});
    const Tile t(DType::F64, Shape{2, 3});
    CHECK(kernels::permute_tile(t, std::vector<std::size_t>{1, 0}).shape() == Shape{3, 2});
}

namespace {

void use_threads(int n) {
    kernels::set_kernel_threads(n);
    REQUIRE(kernels::kernel_threads() == n);
}

// permute on 1 and on 2 threads: both equal the naive loop (so each other), written and
// accumulated.
template <class T>
void check_threads(const Shape& shape, const std::vector<std::size_t>& perm) {
    for (int threads : {1, 2}) {
        INFO(threads << " threads");
        use_threads(threads);
        check<T>(shape, perm);
    }
    use_threads(1);
}

void check_threads_all_orders(const Shape& shape, std::size_t limit) {
    std::vector<std::size_t> perm(shape.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::size_t n = 0;
    do {
        INFO("shape " << shape.str() << " perm " << [&] {
            std::string s;
            for (std::size_t d : perm) s += std::to_string(d);
            return s;
        }());
        check_threads<double>(shape, perm);
        check_threads<float>(shape, perm);
    } while (std::next_permutation(perm.begin(), perm.end()) && ++n < limit);
}

}  // namespace

TEST_CASE("permute: einsum's layout classes on 1 and 2 threads", "[permute][threads]") {
    // [batch][rows][cols] in every order: batch first, middle and last, rows and cols
    // transposed; extents past the blocks (64 doubles, 128 floats along the input's rows; 128
    // along the output's, 32 in narrow blocks) and ragged, > 2 x the grain, so 2 threads split
    // the work.
    check_threads_all_orders(Shape{6, 130, 90}, 100);
    // A narrow batch (8 elements along the input's rows: the direct block transpose).
    check_threads_all_orders(Shape{300, 70, 8}, 100);
    // 4-D: pairs of labels as rows and cols, in 24 orders.
    check_threads_all_orders(Shape{3, 50, 5, 90}, 100);
    // A transposed matrix with several blocks each way.
    check_threads<double>(Shape{300, 333}, {1, 0});
    check_threads<float>(Shape{300, 333}, {1, 0});
    // The output's rows longer than a chunk of the parallel loop (4096 elements along q), the
    // last chunk partial: with no outer dimension (a batch of 64 moved first) and with one.
    check_threads<double>(Shape{9001, 64}, {1, 0});
    check_threads<float>(Shape{9001, 130}, {1, 0});
    check_threads<double>(Shape{3, 4500, 70}, {0, 2, 1});
}

TEST_CASE("permute: outputs past 8 MiB (non-temporal stores) on 1 and 2 threads",
          "[permute][threads]") {
    // Ragged extents, so rows start off 16-byte alignment and end in a partial vector; the batch
    // (odd: 65 or 129) moved from last to first, from first to last and from the middle.
    check_threads<double>(Shape{1031, 1029}, {1, 0});
    check_threads<double>(Shape{129, 131, 65}, {2, 0, 1});
    check_threads<double>(Shape{65, 131, 129}, {1, 2, 0});
    check_threads<double>(Shape{131, 65, 129}, {2, 1, 0});
    check_threads<float>(Shape{2053, 1031}, {1, 0});
    check_threads<float>(Shape{129, 131, 129}, {2, 0, 1});
    check_threads<float>(Shape{129, 131, 129}, {1, 2, 0});
    // Rows of several chunks (4096 elements along q), streamed.
    check_threads<double>(Shape{17001, 65}, {1, 0});
}

TEST_CASE("permute: a narrow innermost output dimension joined with the one around it",
          "[permute][threads]") {
    // Output [t][s][h] of input [h][s][t] (attention's product into `tsh`): h (8, or 5 and 37
    // around the 32-element block) and s are contiguous together in the output.
    check_threads_all_orders(Shape{8, 70, 300}, 100);
    check_threads<double>(Shape{5, 67, 130}, {2, 1, 0});
    check_threads<float>(Shape{37, 67, 130}, {2, 1, 0});
    check_threads<double>(Shape{8, 363, 365}, {2, 1, 0});  // 8.5 MB: non-temporal stores too
    check_threads<float>(Shape{8, 513, 515}, {2, 1, 0});
    // Labels of 32 to 127 (under a block's 128 output columns): `cadb` into [a][b][c][d], d
    // joined with c, blocks crossing from one c to the next (40 and 100 do not divide 128).
    check_threads<double>(Shape{7, 5, 40, 70}, {1, 3, 0, 2});
    check_threads<float>(Shape{3, 4, 100, 150}, {1, 3, 0, 2});
    check_threads<double>(Shape{32, 32, 32, 32}, {1, 3, 0, 2});
}

TEST_CASE("permute: a narrow innermost input dimension joined with the one around it",
          "[permute][threads]") {
    // Input [j][i][b] into output [b][i][j] (an operand of `jib,kjb->kib` into GEMM order): b (16,
    // or 5 and 37 against the 64-double and 128-float rows) and i are contiguous together in the
    // input, not in the output, whose rows then take two strides.
    check_threads<double>(Shape{130, 67, 16}, {2, 1, 0});
    check_threads<double>(Shape{130, 67, 5}, {2, 1, 0});
    check_threads<float>(Shape{130, 67, 37}, {2, 1, 0});
    check_threads<double>(Shape{3, 130, 67, 16}, {3, 0, 2, 1});
    check_threads<double>(Shape{531, 131, 16}, {2, 1, 0});  // 8.9 MB: non-temporal stores too
    check_threads<float>(Shape{531, 131, 40}, {2, 1, 0});
}

TEST_CASE("parallel_for: disjoint chunks covering the range, small ranges on one thread",
          "[threads]") {
    for (int threads : {1, 2}) {
        use_threads(threads);
        for (std::int64_t n : {0, 1, 5, 99, 100, 1000, 12345}) {
            INFO(threads << " threads, n = " << n);
            std::vector<int> hits(static_cast<std::size_t>(n), 0);
            std::vector<std::pair<std::int64_t, std::int64_t>> chunks(2, {-1, -1});
            std::atomic<bool> empty_chunk = false;  // no Catch2 assertions off the main thread
            kernels::parallel_for(n, 100, [&](std::int64_t begin, std::int64_t end) {
                if (begin >= end) empty_chunk = true;
                for (std::int64_t i = begin; i < end; ++i) ++hits[static_cast<std::size_t>(i)];
                chunks[begin == 0 ? 0 : 1] = {begin, end};
            });
            CHECK_FALSE(empty_chunk);
            CHECK(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }));
            // Two chunks exactly when 2 threads have at least 2 grains of work.
            const bool split = threads == 2 && n >= 200;
            CHECK((chunks[1].first >= 0) == split);
            if (split) CHECK(chunks[1].first - chunks[0].first >= 100);
        }
    }
    use_threads(1);
}
