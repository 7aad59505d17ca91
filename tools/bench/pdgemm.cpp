// ScaLAPACK's pdgemm on a PR x PC BLACS grid with NB x NB blocks (2-D block-cyclic), the
// baseline users would otherwise call. Built only where Debian's libscalapack-openmpi-dev is
// installed; tools/bench/compare.py searches the grid and NB and reports the best.
// Usage: mpirun -n P bench_pdgemm I K J PR PC NB REPEATS
// Prints {"seconds": [...]}: per repeat the slowest rank's time.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "test_matrix.hpp"

extern "C" {
void Cblacs_pinfo(int* rank, int* size);
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int rows, int cols);
void Cblacs_gridinfo(int context, int* rows, int* cols, int* row, int* col);
void Cblacs_gridexit(int context);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb,
               const int* irsrc, const int* icsrc, const int* ictxt, const int* lld, int* info);
void pdgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
             const double* alpha, const double* a, const int* ia, const int* ja, const int* desca,
             const double* b, const int* ib, const int* jb, const int* descb, const double* beta,
             double* c, const int* ic, const int* jc, const int* descc);
}

namespace {

// One block-cyclic distributed matrix: this rank's local part, column-major.
struct Local {
    int rows, cols;
    int desc[9];
    std::vector<double> data;
};

Local distribute(int m, int n, int nb, int context, int grid_rows, int grid_cols, int row, int col,
                 double (*element)(std::int64_t, std::int64_t)) {
    const int zero = 0;
    Local l;
    l.rows = numroc_(&m, &nb, &row, &zero, &grid_rows);
    l.cols = numroc_(&n, &nb, &col, &zero, &grid_cols);
    const int lld = std::max(1, l.rows);
    int info = 0;
    descinit_(l.desc, &m, &n, &nb, &nb, &zero, &zero, &context, &lld, &info);
    if (info != 0) throw info;
    l.data.assign(static_cast<std::size_t>(lld) * std::max(1, l.cols), 0.0);
    for (int lj = 0; lj < l.cols; ++lj) {
        const std::int64_t gj = (std::int64_t(lj / nb) * grid_cols + col) * nb + lj % nb;
        for (int li = 0; li < l.rows; ++li) {
            const std::int64_t gi = (std::int64_t(li / nb) * grid_rows + row) * nb + li % nb;
            if (element) l.data[std::size_t(lj) * lld + li] = element(gi, gj);
        }
    }
    return l;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    Cblacs_pinfo(&rank, &size);
    if (argc != 8) {
        if (rank == 0) std::fprintf(stderr, "usage: bench_pdgemm I K J PR PC NB REPEATS\n");
        MPI_Finalize();
        return 2;
    }
    const int I = std::atoi(argv[1]), K = std::atoi(argv[2]), J = std::atoi(argv[3]);
    int grid_rows = std::atoi(argv[4]), grid_cols = std::atoi(argv[5]);
    const int nb = std::atoi(argv[6]), repeats = std::atoi(argv[7]);
    if (grid_rows * grid_cols != size) {
        if (rank == 0) std::fprintf(stderr, "bench_pdgemm: PR x PC must equal the ranks\n");
        MPI_Finalize();
        return 2;
    }
    int context = 0, row = 0, col = 0;
    Cblacs_get(-1, 0, &context);
    Cblacs_gridinit(&context, "Row", grid_rows, grid_cols);
    Cblacs_gridinfo(context, &grid_rows, &grid_cols, &row, &col);
    Local a = distribute(I, K, nb, context, grid_rows, grid_cols, row, col, tra::bench::a_element);
    Local b = distribute(K, J, nb, context, grid_rows, grid_cols, row, col, tra::bench::b_element);
    Local c = distribute(I, J, nb, context, grid_rows, grid_cols, row, col, nullptr);
    const int one = 1;
    const double alpha = 1.0, beta = 0.0;
    std::string times;
    for (int r = 0; r < repeats; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        pdgemm_("N", "N", &I, &J, &K, &alpha, a.data.data(), &one, &one, a.desc, b.data.data(),
                &one, &one, b.desc, &beta, c.data.data(), &one, &one, c.desc);
        double mine = MPI_Wtime() - t0, slowest = 0;
        MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        times += (r ? ", " : "") + std::to_string(slowest);
    }
    // Spot check: this rank's first local element of C, at global (row * nb, col * nb).
    int ok = c.rows == 0 || c.cols == 0 ||
             tra::bench::same(c.data[0], tra::bench::c_element(row * nb, col * nb, K));
    int all_ok = 0;
    MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (!all_ok)
            std::fprintf(stderr, "bench_pdgemm: wrong product\n");
        else
            std::printf("{\"seconds\": [%s]}\n", times.c_str());
    }
    Cblacs_gridexit(context);
    MPI_Finalize();
    return all_ok || rank != 0 ? 0 : 1;
}
