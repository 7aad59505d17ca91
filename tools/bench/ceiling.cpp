// The compute ceiling for C[I,J] = A[I,K] B[K,J]: on P ranks each rank multiplies its own
// I/P rows of A by all of B with one OpenBLAS gemm and no communication at all, all ranks
// starting together. One rank with T BLAS threads is the whole-problem ceiling; P one-thread
// ranks is the practical ceiling of P cores (no rank waits for another's data).
// Usage: mpirun -n P bench_ceiling I K J REPEATS [f64|f32]   (BLAS threads from
// OPENBLAS_NUM_THREADS; f32 runs sgemm)
// Prints {"seconds": [...]}: per repeat, the slowest rank's time.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gemm.hpp"
#include "slowest_rank_times.hpp"
#include "test_matrix.hpp"

namespace {

// Runs the ceiling in element type T on this rank's rows (seconds per repeat in `times`); true
// when C's spot check holds.
template <typename T>
bool run(int rank, int size, std::int64_t I, std::int64_t K, std::int64_t J, int repeats,
         std::string& times) {
    const std::int64_t rows = I / size, row0 = rank * rows;
    std::vector<T> a(rows * K), b(K * J), c(rows * J);
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t k = 0; k < K; ++k)
            a[i * K + k] = static_cast<T>(tra::bench::a_element(row0 + i, k));
    for (std::int64_t k = 0; k < K; ++k)
        for (std::int64_t j = 0; j < J; ++j)
            b[k * J + j] = static_cast<T>(tra::bench::b_element(k, j));
    times = tra::bench::slowest_rank_times(repeats, [&] {
        tra::bench::gemm(rows, J, K, a.data(), K, b.data(), J, T(0), c.data(), J);
    });
    return tra::bench::same(c[rows * J - 1], tra::bench::c_element(row0 + rows - 1, J - 1, K), K);
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    tra::bench::Element element;
    if (argc < 5 || !tra::bench::parse_element(argc, argv, 5, element)) {
        if (rank == 0) std::fprintf(stderr, "usage: bench_ceiling I K J REPEATS [f64|f32]\n");
        MPI_Finalize();
        return 2;
    }
    const std::int64_t I = std::atoll(argv[1]), K = std::atoll(argv[2]), J = std::atoll(argv[3]);
    const int repeats = std::atoi(argv[4]);
    if (I % size != 0) {
        if (rank == 0) std::fprintf(stderr, "bench_ceiling: I must divide by the ranks\n");
        MPI_Finalize();
        return 2;
    }
    std::string times;
    int ok = element == tra::bench::Element::f32 ? run<float>(rank, size, I, K, J, repeats, times)
                                                 : run<double>(rank, size, I, K, J, repeats, times);
    int all_ok = 0;
    MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (!all_ok)
            std::fprintf(stderr, "bench_ceiling: wrong product\n");
        else
            std::printf("{\"seconds\": [%s]}\n", times.c_str());
    }
    MPI_Finalize();
    return all_ok || rank != 0 ? 0 : 1;
}
