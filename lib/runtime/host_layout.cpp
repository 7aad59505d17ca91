#include "runtime/host_layout.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>

#include "core/error.hpp"
#include "kernels/blas_threads.hpp"

namespace tra::runtime {

std::vector<std::string> HostLayout::lines() const {
    std::vector<std::string> out;
    for (const Host& h : hosts) {
        std::string ranks;
        for (int r : h.ranks) ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
        out.push_back("host " + h.name + ": rank" + (h.ranks.size() == 1 ? " " : "s ") + ranks +
                      " (" + std::to_string(h.ranks.size()) + " rank" +
                      (h.ranks.size() == 1 ? "" : "s") + ", " + std::to_string(h.cores) +
                      " cores)");
    }
    return out;
}

std::vector<int> HostLayout::host_of_rank(int size) const {
    std::vector<int> out(static_cast<std::size_t>(std::max(size, 0)), 0);
    for (std::size_t h = 0; h < hosts.size(); ++h)
        for (int r : hosts[h].ranks)
            if (r >= 0 && r < size) out[static_cast<std::size_t>(r)] = static_cast<int>(h);
    return out;
}

HostLayout discover_hosts(MPI_Comm comm) {
    int me = 0, size = 1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    MPI_Comm local;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &local);
    // A host is named by its lowest world rank (the leader), which every rank on it learns.
    int leader = me;
    MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, local);
    MPI_Comm_free(&local);

    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    MPI_Get_processor_name(name, &length);
    std::vector<char> names(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME,
                  MPI_CHAR, comm);
    std::vector<int> leaders(static_cast<std::size_t>(size)), cores(static_cast<std::size_t>(size));
    const int my_cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm);
    MPI_Allgather(&my_cores, 1, MPI_INT, cores.data(), 1, MPI_INT, comm);

    HostLayout layout;
    for (int r = 0; r < size; ++r) {
        const auto l = static_cast<std::size_t>(leaders[static_cast<std::size_t>(r)]);
        auto it = std::find_if(layout.hosts.begin(), layout.hosts.end(), [&](const Host& h) {
            return h.ranks.front() == static_cast<int>(l);
        });
        if (it == layout.hosts.end()) {
            Host h;
            h.name = std::string(names.data() + l * MPI_MAX_PROCESSOR_NAME);
            h.cores = cores[l];
            layout.hosts.push_back(h);
            it = layout.hosts.end() - 1;
        }
        it->ranks.push_back(r);
        if (r == me) layout.my_host = static_cast<int>(it - layout.hosts.begin());
    }
    return layout;
}

int default_threads(const Host& host) {
    return std::max(1, host.cores / static_cast<int>(std::max<std::size_t>(1, host.ranks.size())));
}

std::vector<std::string> oversubscription_warnings(const HostLayout& layout, int threads) {
    std::vector<std::string> out;
    for (const Host& h : layout.hosts) {
        const auto used = static_cast<long long>(h.ranks.size()) * threads;
        if (used > h.cores)
            out.push_back("host " + h.name +
                          " is oversubscribed: " + std::to_string(h.ranks.size()) + " ranks x " +
                          std::to_string(threads) + " BLAS threads = " + std::to_string(used) +
                          " threads on " + std::to_string(h.cores) + " cores");
    }
    return out;
}

int share_cores_with_blas(std::optional<int> requested, const Host& host) {
    if (requested && *requested < 1)
        throw Error("--threads must be at least 1, not " + std::to_string(*requested));
    if (!requested) {
        for (const char* var : {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"})
            if (const char* v = std::getenv(var)) return std::max(1, std::atoi(v));
    }
    const int threads = requested ? *requested : default_threads(host);
    kernels::set_blas_threads(threads);
    return threads;
}

}  // namespace tra::runtime
