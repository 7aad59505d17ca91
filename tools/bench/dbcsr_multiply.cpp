// DBCSR's block-sparse multiply (c_dbcsr_multiply_d), the baseline of
// tools/bench/block_sparse.py. Built only where Debian's libdbcsr-dev is installed.
// Usage: mpirun -n P bench_dbcsr_multiply A.h5 /A B.h5 /B BLOCK REPEATS
// A (I x K) and B (K x J) are f64 HDF5 datasets, chunked; a BLOCK x BLOCK block of either is
// present when a chunk overlapping it is allocated (block_sparse.py writes only the chosen
// blocks, so the others stay unallocated and stand for zeros), exactly what tra's `sparse:
// true` reads. The ranks form DBCSR's 2-D grid (MPI_Dims_create), blocks dealt round-robin over
// its rows and columns; each rank reads its own present blocks. C = A B runs REPEATS times, each
// timed by its slowest rank (only the multiply: C starts empty, beta 0, no filtering).
// Prints one JSON line: {"seconds": [...], "flops": F, "blocks_a": n, "blocks_b": n,
// "blocks_c": n, "norm_c": ||C||_F}, the norm for the harness to check against numpy's.
#include <dbcsr.h>
#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "slowest_rank_times.hpp"

namespace {

// One f64 2-D dataset opened read-only, with the blocks that overlap an allocated chunk.
class Dataset {
  public:
    Dataset(const std::string& path, const std::string& name, int block) : block_(block) {
        file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        if (file_ < 0) throw std::runtime_error("cannot open " + path);
        dset_ = H5Dopen2(file_, name.c_str(), H5P_DEFAULT);
        if (dset_ < 0) throw std::runtime_error("no dataset " + name + " in " + path);
        const hid_t space = H5Dget_space(dset_);
        hsize_t dims[2] = {0, 0};
        if (H5Sget_simple_extent_ndims(space) != 2) throw std::runtime_error(name + " is not 2-D");
        H5Sget_simple_extent_dims(space, dims, nullptr);
        rows_ = static_cast<int>(dims[0]);
        cols_ = static_cast<int>(dims[1]);
        const hid_t plist = H5Dget_create_plist(dset_);
        hsize_t chunk[2] = {0, 0};
        if (H5Pget_layout(plist) != H5D_CHUNKED || H5Pget_chunk(plist, 2, chunk) != 2)
            throw std::runtime_error(path + ":" + name + " is not chunked");
        H5Pclose(plist);
        hsize_t n = 0;
        H5Dget_num_chunks(dset_, space, &n);
        for (hsize_t c = 0; c < n; ++c) {
            hsize_t offset[2];
            unsigned mask = 0;
            haddr_t addr = 0;
            hsize_t size = 0;
            H5Dget_chunk_info(dset_, space, c, offset, &mask, &addr, &size);
            const hsize_t last_row = std::min<hsize_t>(offset[0] + chunk[0], dims[0]) - 1;
            const hsize_t last_col = std::min<hsize_t>(offset[1] + chunk[1], dims[1]) - 1;
            for (hsize_t r = offset[0] / block; r <= last_row / block; ++r)
                for (hsize_t q = offset[1] / block; q <= last_col / block; ++q)
                    present_.emplace(static_cast<int>(r), static_cast<int>(q));
        }
        H5Sclose(space);
    }
    ~Dataset() {
        H5Dclose(dset_);
        H5Fclose(file_);
    }
    Dataset(const Dataset&) = delete;
    Dataset& operator=(const Dataset&) = delete;

    int rows() const { return rows_; }
    int cols() const { return cols_; }
    const std::set<std::pair<int, int>>& present() const { return present_; }

    // Block (r, q), `nr` x `nc`, into `out` column-major (DBCSR's block layout).
    void read_block(int r, int q, int nr, int nc, double* out) const {
        std::vector<double> rowmajor(static_cast<std::size_t>(nr) * nc);
        const hsize_t start[2] = {hsize_t(r) * block_, hsize_t(q) * block_};
        const hsize_t count[2] = {hsize_t(nr), hsize_t(nc)};
        const hid_t file_space = H5Dget_space(dset_);
        H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, nullptr, count, nullptr);
        const hid_t mem_space = H5Screate_simple(2, count, nullptr);
        const herr_t err =
            H5Dread(dset_, H5T_NATIVE_DOUBLE, mem_space, file_space, H5P_DEFAULT, rowmajor.data());
        H5Sclose(mem_space);
        H5Sclose(file_space);
        if (err < 0) throw std::runtime_error("reading a block failed");
        for (int i = 0; i < nr; ++i)
            for (int j = 0; j < nc; ++j)
                out[std::size_t(j) * nr + i] = rowmajor[std::size_t(i) * nc + j];
    }

  private:
    int block_;
    hid_t file_ = -1, dset_ = -1;
    int rows_ = 0, cols_ = 0;
    std::set<std::pair<int, int>> present_;
};

// Block sizes of an extent cut into `block` (the last one ragged).
std::vector<int> block_sizes(int extent, int block) {
    std::vector<int> sizes;
    for (int at = 0; at < extent; at += block) sizes.push_back(std::min(block, extent - at));
    return sizes;
}

std::vector<int> round_robin(std::size_t blocks, int procs) {
    std::vector<int> dist(blocks);
    for (std::size_t i = 0; i < blocks; ++i) dist[i] = static_cast<int>(i) % procs;
    return dist;
}

// A DBCSR matrix holding the dataset's present blocks that this rank stores.
dbcsr_matrix load(const char* name, const Dataset& d, dbcsr_distribution dist,
                  std::vector<int>& row_sizes, std::vector<int>& col_sizes, int rank) {
    dbcsr_matrix m = nullptr;
    c_dbcsr_create_new(&m, name, dist, dbcsr_type_no_symmetry, row_sizes.data(),
                       static_cast<int>(row_sizes.size()), col_sizes.data(),
                       static_cast<int>(col_sizes.size()), nullptr, nullptr, nullptr, nullptr,
                       nullptr, nullptr);
    std::vector<int> rows, cols;
    for (const auto& [r, q] : d.present()) {
        int owner = -1;
        c_dbcsr_get_stored_coordinates(m, r, q, &owner);
        if (owner != rank) continue;
        rows.push_back(r);
        cols.push_back(q);
    }
    c_dbcsr_reserve_blocks(m, rows.data(), cols.data(), static_cast<int>(rows.size()));
    dbcsr_iterator it = nullptr;
    c_dbcsr_iterator_start(&it, m, nullptr, nullptr, nullptr, nullptr, nullptr);
    while (c_dbcsr_iterator_blocks_left(it)) {
        int r = -1, q = -1, number = -1, nr = -1, nc = -1;
        bool transposed = false;
        double* block = nullptr;
        c_dbcsr_iterator_next_2d_block_d(it, &r, &q, &block, &transposed, &number, &nr, &nc,
                                         nullptr, nullptr);
        d.read_block(r, q, nr, nc, block);
    }
    c_dbcsr_iterator_stop(&it);
    c_dbcsr_finalize(m);
    return m;
}

long long global_blocks(dbcsr_matrix m) {
    long long mine = c_dbcsr_get_num_blocks(m), all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 7) {
        if (rank == 0)
            std::fprintf(stderr, "usage: bench_dbcsr_multiply A.h5 /A B.h5 /B BLOCK REPEATS\n");
        MPI_Finalize();
        return 2;
    }
    const int block = std::atoi(argv[5]), repeats = std::atoi(argv[6]);
    try {
        if (block < 1 || repeats < 1) throw std::runtime_error("BLOCK and REPEATS must be >= 1");
        Dataset a(argv[1], argv[2], block), b(argv[3], argv[4], block);
        if (a.cols() != b.rows()) throw std::runtime_error("A's columns are not B's rows");

        int dims[2] = {0, 0}, periods[2] = {1, 1};
        MPI_Dims_create(size, 2, dims);
        MPI_Comm grid;
        MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
        c_dbcsr_init_lib(MPI_COMM_WORLD, nullptr);
        std::vector<int> i_sizes = block_sizes(a.rows(), block),
                         k_sizes = block_sizes(a.cols(), block),
                         j_sizes = block_sizes(b.cols(), block);
        std::vector<int> i_dist = round_robin(i_sizes.size(), dims[0]),
                         k_row_dist = round_robin(k_sizes.size(), dims[0]),
                         k_col_dist = round_robin(k_sizes.size(), dims[1]),
                         j_dist = round_robin(j_sizes.size(), dims[1]);
        dbcsr_distribution dist_a = nullptr, dist_b = nullptr, dist_c = nullptr;
        c_dbcsr_distribution_new(&dist_a, grid, i_dist.data(), int(i_dist.size()),
                                 k_col_dist.data(), int(k_col_dist.size()));
        c_dbcsr_distribution_new(&dist_b, grid, k_row_dist.data(), int(k_row_dist.size()),
                                 j_dist.data(), int(j_dist.size()));
        c_dbcsr_distribution_new(&dist_c, grid, i_dist.data(), int(i_dist.size()), j_dist.data(),
                                 int(j_dist.size()));
        dbcsr_matrix ma = load("A", a, dist_a, i_sizes, k_sizes, rank);
        dbcsr_matrix mb = load("B", b, dist_b, k_sizes, j_sizes, rank);
        dbcsr_matrix mc = nullptr;
        c_dbcsr_create_new(&mc, "C", dist_c, dbcsr_type_no_symmetry, i_sizes.data(),
                           int(i_sizes.size()), j_sizes.data(), int(j_sizes.size()), nullptr,
                           nullptr, nullptr, nullptr, nullptr, nullptr);
        c_dbcsr_finalize(mc);

        long long flops = 0;
        const std::string times = tra::bench::slowest_rank_times(repeats, [&] {
            flops = 0;
            c_dbcsr_multiply_d('N', 'N', 1.0, ma, mb, 0.0, mc, nullptr, nullptr, nullptr, nullptr,
                               nullptr, nullptr, nullptr, nullptr, &flops);
        });
        const bool local = false;
        const double norm = c_dbcsr_frobenius_norm(mc, &local);
        long long all_flops = 0;  // each rank counts its own multiplications
        MPI_Reduce(&flops, &all_flops, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        const long long blocks_a = global_blocks(ma), blocks_b = global_blocks(mb),
                        blocks_c = global_blocks(mc);
        if (rank == 0)
            std::printf(
                "{\"seconds\": [%s], \"flops\": %lld, \"blocks_a\": %lld, "
                "\"blocks_b\": %lld, \"blocks_c\": %lld, \"norm_c\": %.17g}\n",
                times.c_str(), all_flops, blocks_a, blocks_b, blocks_c, norm);
        c_dbcsr_release(&ma);
        c_dbcsr_release(&mb);
        c_dbcsr_release(&mc);
        c_dbcsr_distribution_release(&dist_a);
        c_dbcsr_distribution_release(&dist_b);
        c_dbcsr_distribution_release(&dist_c);
        c_dbcsr_finalize_lib();
        MPI_Comm_free(&grid);
    } catch (const std::exception& e) {
        // Another rank may wait in a collective: end them all.
        std::fprintf(stderr, "bench_dbcsr_multiply: %s\n", e.what());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return 0;
}
