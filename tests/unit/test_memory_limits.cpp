// The default memory budget's limits, read from fake cgroup trees and fake Slurm environments;
// expected values are the bytes written into the fake files, times 3/4, divided by hand.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "core/error.hpp"
#include "runtime/memory_limits.hpp"
#include "temp_dir.hpp"

using namespace tra;
using runtime::MemoryLimit;
using tra::testing::TempDir;

namespace {

// A Slurm environment of the given variables only.
std::vector<MemoryLimit> slurm(const std::map<std::string, std::string>& vars) {
    return runtime::slurm_limits([&](const char* name) -> const char* {
        const auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    });
}

}  // namespace

TEST_CASE("cgroup v1: the tightest memory.limit_in_bytes from the group up to the root") {
    TempDir root("memlimits");
    root.write("memory/memory.limit_in_bytes", "9223372036854771712\n");  // v1's "unlimited"
    root.write("memory/slurm/memory.limit_in_bytes", "8589934592\n");
    root.write("memory/slurm/uid_0/job_7/memory.limit_in_bytes", "9223372036854771712\n");
    root.write("memory/slurm/uid_0/job_7/step_0/memory.limit_in_bytes", "4294967296\n");
    const std::string proc =
        "12:pids:/slurm/uid_0/job_7/step_0\n"
        "4:memory:/slurm/uid_0/job_7/step_0\n"
        "1:name=systemd:/\n";
    auto limits = runtime::cgroup_limits(proc, root.path());
    REQUIRE(limits.size() == 1);
    CHECK(limits[0].bytes == 4294967296);
    CHECK(limits[0].per_host);
    CHECK(limits[0].source ==
          "cgroup v1 " + root.path() + "/memory/slurm/uid_0/job_7/step_0/memory.limit_in_bytes");

    // The parent is tighter than the group; a controller list naming memory among others.
    root.write("memory/slurm/uid_0/memory.limit_in_bytes", "1073741824\n");
    limits = runtime::cgroup_limits("4:cpu,memory:/slurm/uid_0/job_7/step_0\n", root.path());
    REQUIRE(limits.size() == 1);
    CHECK(limits[0].bytes == 1073741824);

    // A group not visible in this mount namespace: the root's file still counts, and an
    // unlimited root is no limit at all.
    CHECK(runtime::cgroup_limits("4:memory:/elsewhere/x\n", root.path()).empty());
    // No memory controller, and lines that are not cgroup lines.
    CHECK(runtime::cgroup_limits("3:cpu:/slurm\ngarbage\n\n", root.path()).empty());
}

TEST_CASE("cgroup v2: memory.max, where 'max' is no limit, under unified/ when mounted there") {
    TempDir root("memlimits");
    root.write("memory.max", "max\n");
    root.write("user.slice/memory.max", "max\n");
    root.write("user.slice/job/memory.max", "2147483648\n");
    auto limits = runtime::cgroup_limits("0::/user.slice/job\n", root.path());
    REQUIRE(limits.size() == 1);
    CHECK(limits[0].bytes == 2147483648);
    CHECK(limits[0].source == "cgroup v2 " + root.path() + "/user.slice/job/memory.max");
    CHECK(runtime::cgroup_limits("0::/user.slice\n", root.path()).empty());

    // A hybrid host (v1 controllers, v2 at unified/): both versions count, each its tightest.
    TempDir hybrid("memlimits");
    hybrid.write("unified/cgroup.controllers", "\n");
    hybrid.write("unified/a/memory.max", "3000000000\n");
    hybrid.write("memory/a/memory.limit_in_bytes", "5000000000\n");
    limits = runtime::cgroup_limits("4:memory:/a\n0::/a\n", hybrid.path());
    REQUIRE(limits.size() == 2);
    CHECK(limits[0].bytes == 5000000000);
    CHECK(limits[1].bytes == 3000000000);
    // An unreadable value (garbage, beyond 64 bits) is skipped, not trusted.
    hybrid.write("unified/a/memory.max", "99999999999999999999999\n");
    limits = runtime::cgroup_limits("0::/a\n", hybrid.path());
    CHECK(limits.empty());
}

TEST_CASE("Slurm: --mem per node is shared by the host's ranks, --mem-per-cpu is per rank") {
    CHECK(slurm({}).empty());
    auto limits = slurm({{"SLURM_MEM_PER_NODE", "2048"}});
    REQUIRE(limits.size() == 1);
    CHECK(limits[0].bytes == 2048LL * 1024 * 1024);
    CHECK(limits[0].per_host);

    limits = slurm({{"SLURM_MEM_PER_CPU", "1000"}, {"SLURM_CPUS_PER_TASK", "3"}});
    REQUIRE(limits.size() == 1);
    CHECK(limits[0].bytes == 3000LL * 1024 * 1024);
    CHECK_FALSE(limits[0].per_host);
    CHECK(slurm({{"SLURM_MEM_PER_CPU", "1000"}})[0].bytes == 1000LL * 1024 * 1024);

    CHECK_THROWS_WITH(slurm({{"SLURM_MEM_PER_NODE", "2G"}}),
                      "SLURM_MEM_PER_NODE='2G' is not a whole number of megabytes (as Slurm "
                      "sets it)");
    CHECK_THROWS_WITH(slurm({{"SLURM_MEM_PER_NODE", "99999999999999999"}}),
                      Catch::Contains("SLURM_MEM_PER_NODE"));
    CHECK_THROWS_WITH(slurm({{"SLURM_MEM_PER_CPU", "10"}, {"SLURM_CPUS_PER_TASK", "0"}}),
                      Catch::Contains("SLURM_CPUS_PER_TASK='0'"));
}

TEST_CASE("the budget is 3/4 of the tightest limit, a host's divided among its ranks") {
    const std::vector<MemoryLimit> limits = {
        {16000, true, "physical"}, {8000, true, "cgroup"}, {2500, false, "slurm per cpu"}};
    // 4 ranks: host limits give 3000 and 1500 each, the per-rank one 1875.
    auto b = runtime::tightest_budget(limits, 4);
    CHECK(b.bytes == 1500);
    CHECK(b.reason == "3/4 of cgroup (8000 bytes) over 4 ranks on the host");
    // 1 rank: 12000, 6000, 1875.
    b = runtime::tightest_budget(limits, 1);
    CHECK(b.bytes == 1875);
    CHECK(b.reason == "3/4 of slurm per cpu (2500 bytes) per rank");
    CHECK(runtime::tightest_budget({}, 2).bytes == 0);
    // Sizes are named in the unit that reads best.
    b = runtime::tightest_budget({{std::int64_t{3} << 30, true, "a"}}, 1);
    CHECK(b.bytes == (std::int64_t{9} << 30) / 4);
    CHECK(b.reason == "3/4 of a (3.00 GiB) over 1 rank on the host");
    CHECK(runtime::tightest_budget({{std::int64_t{256} << 20, false, "b"}}, 1).reason ==
          "3/4 of b (256.0 MiB) per rank");
}
