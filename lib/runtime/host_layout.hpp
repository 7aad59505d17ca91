#pragma once
// Which ranks of a run share a host (MPI_Comm_split_type SHARED, named by MPI_Get_processor_name),
// how many cores each host has, and the default share of a host's cores each rank gets for BLAS
// threads (docs/runtime.md, "Ranks and BLAS threads"; memory: memory_limits.hpp).
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tra::runtime {

struct Host {
    std::string name;        // MPI_Get_processor_name of its lowest rank
    std::vector<int> ranks;  // ascending world ranks
    int cores = 1;           // hardware threads the host reports (std::thread)
};

struct HostLayout {
    std::vector<Host> hosts;  // by lowest rank
    int my_host = 0;          // index of this rank's host

    const Host& mine() const { return hosts.at(static_cast<std::size_t>(my_host)); }
    // "host NAME: ranks 0,1 (2 ranks, 8 cores)" per host.
    std::vector<std::string> lines() const;
    // Which host each of the `size` ranks is on (an index into hosts): the time model's
    // host_of_site for a run of one site per rank.
    std::vector<int> host_of_rank(int size) const;
};

// Collective over `comm`.
HostLayout discover_hosts(MPI_Comm comm);

// BLAS threads per rank by default: the host's cores divided by its ranks, at least 1.
int default_threads(const Host& host);

// The BLAS threads of this rank, the one choice `tra run` and `tra calibrate` share (a profile
// is only good for runs with the threads it was measured with): `requested` (--threads; Error
// when below 1); else OPENBLAS_NUM_THREADS / OMP_NUM_THREADS when set (the BLAS reads them
// itself); else default_threads(host). Sets the BLAS's threads where it chose them; returns them.
int share_cores_with_blas(std::optional<int> requested, const Host& host);

// Ranks x threads above the cores of any host: one warning line per such host, else none.
std::vector<std::string> oversubscription_warnings(const HostLayout& layout, int threads);

}  // namespace tra::runtime
