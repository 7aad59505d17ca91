// The compute ceiling for C[I,J] = A[I,K] B[K,J]: on P ranks each rank multiplies its own
// I/P rows of A by all of B with one OpenBLAS dgemm and no communication at all, all ranks
// starting together. One rank with T BLAS threads is the whole-problem ceiling; P one-thread
// ranks is the practical ceiling of P cores (no rank waits for another's data).
// Usage: mpirun -n P bench_ceiling I K J REPEATS   (BLAS threads from OPENBLAS_NUM_THREADS)
// Prints {"seconds": [...]}: per repeat, the slowest rank's time.
#include <cblas.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "test_matrix.hpp"

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 5) {
        if (rank == 0) std::fprintf(stderr, "usage: bench_ceiling I K J REPEATS\n");
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
    const std::int64_t rows = I / size, row0 = rank * rows;
    std::vector<double> a(rows * K), b(K * J), c(rows * J);
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t k = 0; k < K; ++k) a[i * K + k] = tra::bench::a_element(row0 + i, k);
    for (std::int64_t k = 0; k < K; ++k)
        for (std::int64_t j = 0; j < J; ++j) b[k * J + j] = tra::bench::b_element(k, j);
    std::string times;
    for (int r = 0; r < repeats; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows),
                    static_cast<int>(J), static_cast<int>(K), 1.0, a.data(), static_cast<int>(K),
                    b.data(), static_cast<int>(J), 0.0, c.data(), static_cast<int>(J));
        double mine = MPI_Wtime() - t0, slowest = 0;
        MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        times += (r ? ", " : "") + std::to_string(slowest);
    }
    int ok = tra::bench::same(c[rows * J - 1], tra::bench::c_element(row0 + rows - 1, J - 1, K));
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
