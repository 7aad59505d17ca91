#include "run_memory.hpp"

#include <limits>

#include "plan_request.hpp"
#include "runtime/memory_limits.hpp"

namespace tra::cli {

Budget memory_budget(const RunOptions& opt, const runtime::DeviceContext& device,
                     const runtime::HostLayout& hosts, const runtime::RankAgreement& agree,
                     MPI_Comm comm) {
    if (opt.memory_per_site) return {*opt.memory_per_site, "--memory-per-site"};
    if (device.device == runtime::Device::Gpu)
        return {device.memory_budget, "the GPU's free memory less headroom, per rank sharing it"};
    runtime::MemoryBudget mine;
    agree.step([&] {
        mine = runtime::tightest_budget(runtime::limits_in_force(),
                                        static_cast<int>(hosts.mine().ranks.size()));
    });
    // Unknown (0) loses to any known budget; the reason travels from the rank that has the least.
    struct {
        long bytes;
        int rank;
    } in{mine.bytes > 0 ? mine.bytes : std::numeric_limits<long>::max(), agree.rank()}, least{};
    MPI_Allreduce(&in, &least, 1, MPI_LONG_INT, MPI_MINLOC, comm);
    if (least.bytes == std::numeric_limits<long>::max()) return {};
    Budget b{least.bytes, mine.reason};
    int length = static_cast<int>(b.reason.size());
    MPI_Bcast(&length, 1, MPI_INT, least.rank, comm);
    b.reason.resize(static_cast<std::size_t>(length));
    MPI_Bcast(b.reason.data(), length, MPI_CHAR, least.rank, comm);
    if (least.rank != 0) b.reason += " (on rank " + std::to_string(least.rank) + ")";
    return b;
}

void check_memory(const Budget& budget, const std::string& name, std::int64_t needs, int rank) {
    const std::int64_t have = budget.bytes;
    if (have > 0 && needs > have)
        throw Error(
            "plan " + (name.empty() ? std::string("(no choices)") : name) + " needs " +
            std::to_string(needs) + " bytes (" + human_bytes(static_cast<double>(needs)) +
            ") on site " + std::to_string(rank) + ", have " + std::to_string(have) + " (" +
            human_bytes(static_cast<double>(have)) + ", " + budget.reason +
            "); run on more ranks, pick a plan with a smaller peak, or raise --memory-per-site");
}

}  // namespace tra::cli
