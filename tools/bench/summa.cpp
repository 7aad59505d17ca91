// A plain 2-D SUMMA (van de Geijn and Watts) with MPI and OpenBLAS, the hand-written baseline
// tra must beat. P = PR x PC ranks; rank (r, c) owns the (r, c) blocks of A [I, K] (I/PR x K/PC),
// B [K, J] (K/PR x J/PC) and C [I, J] (I/PR x J/PC). For each panel of NB columns of A / rows of
// B, the panel's owner broadcasts its piece of A along the grid row and of B along the grid
// column, then every rank adds the panel product into its C block with one gemm.
// Usage: mpirun -n P bench_summa I K J PR PC NB REPEATS [f64|f32]   (f32: sgemm, MPI_FLOAT)
// Prints {"seconds": [...], "received_bytes": N}: per repeat the slowest rank's time, and the
// bytes all ranks together receive in one multiply (counted from the broadcasts made).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "gemm.hpp"
#include "slowest_rank_times.hpp"
#include "test_matrix.hpp"

namespace {

struct Grid {
    int rows, cols, row, col;
    MPI_Comm row_comm, col_comm;  // the ranks of my grid row / grid column
};

// The blocks of this rank's grid position, the SUMMA loop timed `repeats` times (their
// seconds in `times`), and C's spot check; `received` is what this rank received in one multiply.
template <typename T>
bool run(const Grid& g, std::int64_t I, std::int64_t K, std::int64_t J, std::int64_t nb,
         int repeats, std::string& times, std::int64_t& received) {
    const MPI_Datatype type = std::is_same_v<T, float> ? MPI_FLOAT : MPI_DOUBLE;
    const std::int64_t mi = I / g.rows, mj = J / g.cols, ka = K / g.cols, kb = K / g.rows;
    std::vector<T> a(mi * ka), b(kb * mj), c(mi * mj), a_panel(mi * nb), b_panel(nb * mj);
    for (std::int64_t i = 0; i < mi; ++i)
        for (std::int64_t k = 0; k < ka; ++k)
            a[i * ka + k] = static_cast<T>(tra::bench::a_element(g.row * mi + i, g.col * ka + k));
    for (std::int64_t k = 0; k < kb; ++k)
        for (std::int64_t j = 0; j < mj; ++j)
            b[k * mj + j] = static_cast<T>(tra::bench::b_element(g.row * kb + k, g.col * mj + j));

    times = tra::bench::slowest_rank_times(repeats, [&] {
        received = 0;
        for (std::int64_t k0 = 0; k0 < K; k0 += nb) {
            const int a_owner = static_cast<int>(k0 / ka), b_owner = static_cast<int>(k0 / kb);
            const T* ap = a.data() + (k0 % ka);  // the panel inside my A block, lda = ka
            std::int64_t lda = ka;
            if (g.cols > 1) {
                if (a_owner == g.col)  // pack my columns; others receive them packed
                    for (std::int64_t i = 0; i < mi; ++i)
                        std::copy_n(a.data() + i * ka + k0 % ka, nb, a_panel.data() + i * nb);
                MPI_Bcast(a_panel.data(), static_cast<int>(mi * nb), type, a_owner, g.row_comm);
                if (a_owner != g.col) received += mi * nb * sizeof(T);
                ap = a_panel.data();
                lda = nb;
            }
            const T* bp = b.data() + (k0 % kb) * mj;  // rows of B are contiguous
            if (g.rows > 1) {
                if (b_owner == g.row) std::copy_n(bp, nb * mj, b_panel.data());
                MPI_Bcast(b_panel.data(), static_cast<int>(nb * mj), type, b_owner, g.col_comm);
                if (b_owner != g.row) received += nb * mj * sizeof(T);
                bp = b_panel.data();
            }
            tra::bench::gemm(mi, mj, nb, ap, lda, bp, mj, T(k0 == 0 ? 0 : 1), c.data(), mj);
        }
    });
    using tra::bench::c_element;
    return tra::bench::same(c[0], c_element(g.row * mi, g.col * mj, K), K) &&
           tra::bench::same(c[mi * mj - 1], c_element(g.row * mi + mi - 1, g.col * mj + mj - 1, K),
                            K);
}

int fail(int rank, const char* why) {
    if (rank == 0) std::fprintf(stderr, "bench_summa: %s\n", why);
    MPI_Finalize();
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    tra::bench::Element element;
    if (argc < 8 || !tra::bench::parse_element(argc, argv, 8, element))
        return fail(rank, "usage: bench_summa I K J PR PC NB REPEATS [f64|f32]");
    const std::int64_t I = std::atoll(argv[1]), K = std::atoll(argv[2]), J = std::atoll(argv[3]);
    Grid g{std::atoi(argv[4]), std::atoi(argv[5]), 0, 0, MPI_COMM_NULL, MPI_COMM_NULL};
    const std::int64_t nb = std::atoll(argv[6]);
    const int repeats = std::atoi(argv[7]);
    if (g.rows * g.cols != size) return fail(rank, "PR x PC must equal the ranks");
    if (I % g.rows || J % g.cols || K % g.rows || K % g.cols)
        return fail(rank, "the grid must divide I, J and K");
    if (nb <= 0 || (K / g.cols) % nb || (K / g.rows) % nb)
        return fail(rank, "NB must divide K / PR and K / PC");
    g.row = rank / g.cols;
    g.col = rank % g.cols;
    MPI_Comm_split(MPI_COMM_WORLD, g.row, g.col, &g.row_comm);
    MPI_Comm_split(MPI_COMM_WORLD, g.col, g.row, &g.col_comm);

    std::int64_t received = 0;  // by this rank in one multiply
    std::string times;
    int ok = element == tra::bench::Element::f32
                 ? run<float>(g, I, K, J, nb, repeats, times, received)
                 : run<double>(g, I, K, J, nb, repeats, times, received);
    int all_ok = 0;
    long long total = 0, mine = received;
    MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (!all_ok)
            std::fprintf(stderr, "bench_summa: wrong product\n");
        else
            std::printf("{\"seconds\": [%s], \"received_bytes\": %lld}\n", times.c_str(), total);
    }
    MPI_Finalize();
    return all_ok || rank != 0 ? 0 : 1;
}
