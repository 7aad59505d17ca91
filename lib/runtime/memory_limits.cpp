#include "runtime/memory_limits.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/checked_math.hpp"
#include "core/error.hpp"

namespace tra::runtime {

namespace fs = std::filesystem;

namespace {

// cgroup v1 reports "no limit" as the largest page-aligned counter (9223372036854771712);
// anything this large is no limit on any real machine.
constexpr std::int64_t kUnlimited = std::int64_t{1} << 62;

// `text` as a whole number >= 0, or nothing (empty, another character, beyond 64 bits).
std::optional<std::int64_t> whole_number(const std::string& text) {
    if (text.empty()) return std::nullopt;
    std::int64_t value = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
        auto next = checked_mul(value, 10);
        if (next) next = checked_add(*next, c - '0');
        if (!next) return std::nullopt;
        value = *next;
    }
    return value;
}

// The first line of `file` as bytes; nothing when missing, unreadable, "max" or not a number.
std::optional<std::int64_t> read_bytes(const fs::path& file) {
    std::ifstream in(file);
    std::string text;
    if (!in || !std::getline(in, text)) return std::nullopt;
    const auto value = whole_number(text);
    if (!value || *value <= 0 || *value >= kUnlimited) return std::nullopt;
    return value;
}

// The tightest `file_name` in `group` and its ancestors up to `root` (inclusive).
std::optional<MemoryLimit> tightest_up(const fs::path& root, const std::string& group,
                                       const std::string& file_name, const std::string& version) {
    std::optional<MemoryLimit> best;
    fs::path rel = fs::path(group).relative_path();
    while (true) {
        const fs::path file = root / rel / file_name;
        if (const auto bytes = read_bytes(file); bytes && (!best || *bytes < best->bytes))
            best = MemoryLimit{*bytes, true,
                               "cgroup " + version + " " + file.lexically_normal().string()};
        if (rel.empty()) break;
        rel = rel.parent_path();
    }
    return best;
}

bool has_memory_controller(const std::string& controllers) {
    std::istringstream in(controllers);
    std::string c;
    while (std::getline(in, c, ','))
        if (c == "memory") return true;
    return false;
}

std::int64_t megabytes(const char* name, const char* value) {
    const auto mb = whole_number(value);
    const auto bytes = mb ? checked_mul(*mb, 1024 * 1024) : std::nullopt;
    if (!bytes)
        throw Error(std::string(name) + "='" + value +
                    "' is not a whole number of megabytes (as Slurm sets it)");
    return *bytes;
}

// "192.0 MiB", "23.54 GiB"; small sizes in bytes.
std::string size_text(std::int64_t bytes) {
    char text[32];
    const double b = static_cast<double>(bytes);
    if (bytes >= (std::int64_t{1} << 30))
        std::snprintf(text, sizeof text, "%.2f GiB", b / (1 << 30));
    else if (bytes >= (std::int64_t{1} << 20))
        std::snprintf(text, sizeof text, "%.1f MiB", b / (1 << 20));
    else
        std::snprintf(text, sizeof text, "%lld bytes", static_cast<long long>(bytes));
    return text;
}

}  // namespace

std::vector<MemoryLimit> cgroup_limits(const std::string& proc_self_cgroup,
                                       const std::string& cgroup_root) {
    std::vector<MemoryLimit> out;
    std::istringstream lines(proc_self_cgroup);
    std::string line;
    while (std::getline(lines, line)) {
        // "hierarchy-ID:controller-list:cgroup-path"; the path may itself hold ':'.
        const auto a = line.find(':');
        const auto b = a == std::string::npos ? a : line.find(':', a + 1);
        if (b == std::string::npos) continue;
        const std::string id = line.substr(0, a), controllers = line.substr(a + 1, b - a - 1);
        const std::string path = line.substr(b + 1);
        std::optional<MemoryLimit> limit;
        if (id == "0" && controllers.empty()) {
            const fs::path unified = fs::path(cgroup_root) / "unified";
            std::error_code ec;
            const fs::path root =
                fs::exists(unified / "cgroup.controllers", ec) ? unified : fs::path(cgroup_root);
            limit = tightest_up(root, path, "memory.max", "v2");
        } else if (has_memory_controller(controllers)) {
            limit =
                tightest_up(fs::path(cgroup_root) / "memory", path, "memory.limit_in_bytes", "v1");
        }
        if (limit) out.push_back(*limit);
    }
    return out;
}

std::vector<MemoryLimit> slurm_limits(const std::function<const char*(const char*)>& env) {
    std::vector<MemoryLimit> out;
    if (const char* node = env("SLURM_MEM_PER_NODE"))
        out.push_back({megabytes("SLURM_MEM_PER_NODE", node), true,
                       "Slurm's SLURM_MEM_PER_NODE=" + std::string(node) + " MB"});
    if (const char* cpu = env("SLURM_MEM_PER_CPU")) {
        const char* cpus = env("SLURM_CPUS_PER_TASK");
        const std::int64_t per_cpu = megabytes("SLURM_MEM_PER_CPU", cpu);
        const auto count = cpus ? whole_number(cpus) : std::optional<std::int64_t>(1);
        const std::int64_t n = count.value_or(0);
        const auto bytes = n >= 1 ? checked_mul(per_cpu, n) : std::nullopt;
        if (!bytes)
            throw Error("SLURM_CPUS_PER_TASK='" + std::string(cpus ? cpus : "") +
                        "' is not a whole number of CPUs of at least 1 (or times "
                        "SLURM_MEM_PER_CPU exceeds 64 bits)");
        out.push_back({*bytes, false,
                       "Slurm's SLURM_MEM_PER_CPU=" + std::string(cpu) + " MB x " +
                           std::to_string(n) + " CPU" + (n == 1 ? "" : "s") + " per task"});
    }
    return out;
}

MemoryBudget tightest_budget(const std::vector<MemoryLimit>& limits, int ranks_on_host) {
    MemoryBudget best;
    const int ranks = std::max(1, ranks_on_host);
    for (const MemoryLimit& l : limits) {
        const double share = kMemoryShare * static_cast<double>(l.bytes) /
                             static_cast<double>(l.per_host ? ranks : 1);
        const auto bytes = static_cast<std::int64_t>(share);
        if (best.bytes != 0 && bytes >= best.bytes) continue;
        best.bytes = bytes;
        best.reason = "3/4 of " + l.source + " (" + size_text(l.bytes) + ")" +
                      (l.per_host ? " over " + std::to_string(ranks) + " rank" +
                                        (ranks == 1 ? "" : "s") + " on the host"
                                  : " per rank");
    }
    return best;
}

std::vector<MemoryLimit> limits_in_force() {
    std::vector<MemoryLimit> out;
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page > 0)
        out.push_back(
            {static_cast<std::int64_t>(pages) * page, true, "the host's physical memory"});
    std::ifstream in("/proc/self/cgroup");
    std::stringstream text;
    text << in.rdbuf();
    for (auto& l : cgroup_limits(text.str(), "/sys/fs/cgroup")) out.push_back(std::move(l));
    for (auto& l : slurm_limits([](const char* name) { return std::getenv(name); }))
        out.push_back(std::move(l));
    return out;
}

}  // namespace tra::runtime
