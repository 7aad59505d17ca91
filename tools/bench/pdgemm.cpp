// ScaLAPACK's pdgemm on a PR x PC BLACS grid with NB x NB blocks (2-D block-cyclic), the
// baseline users would otherwise call (psgemm for f32). Built only where Debian's
// libscalapack-openmpi-dev is installed; tools/bench/compare.py searches the grid and NB and
// reports the best.
// Usage: mpirun -n P bench_pdgemm I K J PR PC NB REPEATS [f64|f32]
// Prints {"seconds": [...]}: per repeat the slowest rank's time.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "slowest_rank_times.hpp"
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
void psgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
             const float* alpha, const float* a, const int* ia, const int* ja, const int* desca,
             const float* b, const int* ib, const int* jb, const int* descb, const float* beta,
             float* c, const int* ic, const int* jc, const int* descc);
}

namespace {

// This rank's place on the BLACS process grid.
struct Grid {
    int context, rows, cols, row, col;
};

// One block-cyclic distributed matrix: this rank's local part, column-major.
template <typename T>
struct Local {
    int rows, cols;
    int desc[9];
    std::vector<T> data;
};

template <typename T>
Local<T> distribute(int m, int n, int nb, const Grid& g,
                    double (*element)(std::int64_t, std::int64_t)) {
    const int zero = 0;
    Local<T> l;
    l.rows = numroc_(&m, &nb, &g.row, &zero, &g.rows);
    l.cols = numroc_(&n, &nb, &g.col, &zero, &g.cols);
    const int lld = std::max(1, l.rows);
    int info = 0;
    descinit_(l.desc, &m, &n, &nb, &nb, &zero, &zero, &g.context, &lld, &info);
    if (info != 0) throw info;
    l.data.assign(static_cast<std::size_t>(lld) * std::max(1, l.cols), T(0));
    for (int lj = 0; lj < l.cols; ++lj) {
        const std::int64_t gj = (std::int64_t(lj / nb) * g.cols + g.col) * nb + lj % nb;
        for (int li = 0; li < l.rows; ++li) {
            const std::int64_t gi = (std::int64_t(li / nb) * g.rows + g.row) * nb + li % nb;
            if (element) l.data[std::size_t(lj) * lld + li] = static_cast<T>(element(gi, gj));
        }
    }
    return l;
}

// Distributes A, B and C in element type T, runs the product `repeats` times (their
// seconds in `times`) and spot-checks this rank's first element of C.
template <typename T>
bool run(int I, int K, int J, int nb, int repeats, const Grid& g, std::string& times) {
    Local<T> a = distribute<T>(I, K, nb, g, tra::bench::a_element);
    Local<T> b = distribute<T>(K, J, nb, g, tra::bench::b_element);
    Local<T> c = distribute<T>(I, J, nb, g, nullptr);
    const int one = 1;
    const T alpha = 1, beta = 0;
    times = tra::bench::slowest_rank_times(repeats, [&] {
        if constexpr (std::is_same_v<T, float>)
            psgemm_("N", "N", &I, &J, &K, &alpha, a.data.data(), &one, &one, a.desc, b.data.data(),
                    &one, &one, b.desc, &beta, c.data.data(), &one, &one, c.desc);
        else
            pdgemm_("N", "N", &I, &J, &K, &alpha, a.data.data(), &one, &one, a.desc, b.data.data(),
                    &one, &one, b.desc, &beta, c.data.data(), &one, &one, c.desc);
    });
    // This rank's first local element of C is at global (row * nb, col * nb).
    return c.rows == 0 || c.cols == 0 ||
           tra::bench::same(c.data[0], tra::bench::c_element(g.row * nb, g.col * nb, K), K);
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    Cblacs_pinfo(&rank, &size);
    tra::bench::Element element;
    if (argc < 8 || !tra::bench::parse_element(argc, argv, 8, element)) {
        if (rank == 0)
            std::fprintf(stderr, "usage: bench_pdgemm I K J PR PC NB REPEATS [f64|f32]\n");
        MPI_Finalize();
        return 2;
    }
    const int I = std::atoi(argv[1]), K = std::atoi(argv[2]), J = std::atoi(argv[3]);
    Grid g{0, std::atoi(argv[4]), std::atoi(argv[5]), 0, 0};
    const int nb = std::atoi(argv[6]), repeats = std::atoi(argv[7]);
    if (g.rows * g.cols != size) {
        if (rank == 0) std::fprintf(stderr, "bench_pdgemm: PR x PC must equal the ranks\n");
        MPI_Finalize();
        return 2;
    }
    Cblacs_get(-1, 0, &g.context);
    Cblacs_gridinit(&g.context, "Row", g.rows, g.cols);
    Cblacs_gridinfo(g.context, &g.rows, &g.cols, &g.row, &g.col);
    std::string times;
    int ok = element == tra::bench::Element::f32 ? run<float>(I, K, J, nb, repeats, g, times)
                                                 : run<double>(I, K, J, nb, repeats, g, times);
    int all_ok = 0;
    MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (!all_ok)
            std::fprintf(stderr, "bench_pdgemm: wrong product\n");
        else
            std::printf("{\"seconds\": [%s]}\n", times.c_str());
    }
    Cblacs_gridexit(g.context);
    MPI_Finalize();
    return all_ok || rank != 0 ? 0 : 1;
}
