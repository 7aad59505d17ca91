// The main of the C++ MPI tests (tests/mpi/test_*.cpp): every rank runs the same test cases in
// the same order, since the cases are collective. Rank 0 reports on stdout; every other rank
// reports into a file of its own, printed on stderr only when that rank failed. The exit code is
// the largest over the ranks, so a failure on any rank fails the test.
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "catch_runner.hpp"

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::string report;
    if (rank != 0)
        report = "/tmp/tra-mpi-test-" + std::to_string(::getpid()) + "-rank" +
                 std::to_string(rank) + ".txt";
    const int code = tra::testing::run_test_cases(argc, argv, report);
    if (!report.empty()) {
        if (code != 0) {
            std::ifstream written(report);
            if (written) std::cerr << "rank " << rank << ":\n" << written.rdbuf();
        }
        std::remove(report.c_str());
    }
    int worst = 0;
    MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
}
