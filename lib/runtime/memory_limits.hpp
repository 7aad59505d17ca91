#pragma once
// The memory a rank may use by default (docs/runtime.md, "Memory"): the tightest of the host's
// physical memory, the cgroup limits this process runs under (containers, Slurm's cgroup
// plugin) and Slurm's --mem / --mem-per-cpu, less a share left to the OS, MPI and HDF5. A plan
// chosen against physical memory alone would be OOM-killed inside a smaller job allocation.
//
// The parsing takes the files' text and folder as arguments, so tests run it on fake trees.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tra::runtime {

// The share of a limit tra plans to use; the rest is left to the OS, MPI, HDF5 and tra itself.
inline constexpr double kMemoryShare = 0.75;

struct MemoryLimit {
    std::int64_t bytes = 0;
    bool per_host = true;  // shared by the ranks on a host (else: each rank's own)
    std::string source;    // "cgroup v1 /sys/fs/cgroup/memory/job_5/memory.limit_in_bytes"
};

// Limits of the cgroups this process is in, given the text of /proc/self/cgroup and the cgroup
// file system's root (normally /sys/fs/cgroup): for v1, memory.limit_in_bytes of the memory
// controller's group and each of its ancestors (ROOT/memory/...); for v2 ("0::/path"),
// memory.max of the group and its ancestors (under ROOT/unified when that is a v2 mount, else
// ROOT). The tightest of each version is returned, at most one per version; "max" and v1's
// "unlimited" value (near 2^63) are no limit, and unreadable or missing files are skipped.
std::vector<MemoryLimit> cgroup_limits(const std::string& proc_self_cgroup,
                                       const std::string& cgroup_root);

// Slurm's limits, looked up with `env` (std::getenv in tra): SLURM_MEM_PER_NODE megabytes for
// the host, or SLURM_MEM_PER_CPU megabytes x SLURM_CPUS_PER_TASK (default 1) for each rank.
// Throws Error (BadInput) naming the variable when a value is not a whole number.
std::vector<MemoryLimit> slurm_limits(const std::function<const char*(const char*)>& env);

struct MemoryBudget {
    std::int64_t bytes = 0;  // per rank; 0 when no limit at all is known
    std::string reason;      // "3/4 of cgroup v1 ... (2.0 GiB) over 2 ranks on this host"
};

// kMemoryShare of the tightest limit, a host limit divided among `ranks_on_host` ranks.
MemoryBudget tightest_budget(const std::vector<MemoryLimit>& limits, int ranks_on_host);

// The limits in force for this process: physical memory, its cgroups, Slurm's environment.
std::vector<MemoryLimit> limits_in_force();

}  // namespace tra::runtime
