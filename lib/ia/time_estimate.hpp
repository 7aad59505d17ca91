#pragma once
// The time model: predicted seconds of a costed IA plan from a machine profile
// (ia/machine_profile.hpp), the default ranking of plans (--cost time; docs/cost-model.md,
// "Time model"). Exact bytes tell too little on their own: a plan that moves nothing because it
// computes everything on one site is the cheapest by bytes and the slowest to run.
//
// Bulk-synchronous: every operator waits for its busiest site, so a plan's seconds are the sum
// over IA nodes of  max over sites s of  compute(s) + communication(s) + memory(s), where
//
//   compute(s)        a local join: per output copy s holds (one kernel call per meeting pair),
//                     the call's flops at the rate of its kernel class (a gemm rate by call size
//                     and dtype, the lanes rate for batch labels run as SIMD lanes, or the loop
//                     rate; the einsum's GEMM plan or Kernel::gemm_calls says which), plus for
//                     a thin or flat gemm the bytes it moves beyond a square one of the same
//                     flops (DtypeRates::gemm_excess_seconds), plus the
//                     profile's kernel_call_seconds; every other local operator: the call
//                     overhead per tuple it processes
//   communication(s)  an enforcer: max(bytes s sends, bytes s receives) / bandwidth plus one
//                     latency per peer s sends to and per peer it receives from (Transfer's
//                     per-site counts). Both sides count: a broadcast's sender pays for every
//                     copy it sends, which charging only received bytes hid. Links: a share
//                     (S - H(s)) / (S - 1) of s's traffic is priced at the across-hosts rates,
//                     where H(s) is the number of sites on s's host, the rest at the same-host
//                     rates (exchanges spread over peers evenly; exact for a broadcast). And
//                     the sites of one host share its network link: an exchange takes at
//                     least the busiest host's across-host bytes (each direction apart) over the
//                     across-host bandwidth.
//   memory(s)         tile bytes read and written by passes the runtime makes outside gemm, at
//                     memory_bytes_per_second: a join whose kernel does no flops (element-wise)
//                     reads its operands and writes its output; a matrix-product join not fused
//                     with its sum (ia/fused_joins.hpp) writes its products; an aggregate not fused
//                     with its join reads its input and writes its output; a transform or a tile
//                     reads and writes its tiles, a replication map its input tiles and
//                     every copy (each copy owns its tile); a matrix-product einsum whose GEMM plan
//                     permutes an operand or its result (TTGT, ia/gemm_pricing.hpp) reads and
//                     writes what it permutes. Filters, rekeys and enforcers' local copies
//                     make no pass. Why the fused pair matters: on one rank, 1024 x 65536 x 1024
//                     with 2048 tiles took 1.81 s fused and 2.02 s with the products written and
//                     summed apart.
//
// Needs annotate_costs first.
#include <vector>

#include "ia/machine_profile.hpp"
#include "ia/plan.hpp"

namespace tra::ia {

struct TimeModel {
    MachineProfile profile = default_machine_profile();
    // host_of_site[s]: which host site s runs on. Empty: every site on one host.
    std::vector<int> host_of_site;

    // Sites on `hosts` hosts, `sites_per_host` consecutive sites each (mpirun's default
    // placement by slot), the last host taking what is left.
    static std::vector<int> blocked_hosts(int sites, int sites_per_host);
};

// One operator's prediction on its busiest site, split by what that site spends it on.
struct OperatorTime {
    double compute = 0, communication = 0, memory = 0;
    double fixed = 0;  // the runtime's own cost of the operator (MachineProfile::operator_seconds;
                       // an exchange's exchange_fixed_seconds())
    Site busiest = 0;
    double seconds() const { return compute + communication + memory + fixed; }
};

// Per IA node from `first` on, in plan order (a partial plan's newest nodes: the search's beam).
std::vector<OperatorTime> operator_times(const Plan& plan, const TimeModel& model,
                                         IaNodeId first = 0);

// What enforcer `n` spends copying the tuples it keeps on a site (its output's bytes there but
// what arrived), where its input is read again by a later operator (runtime/execution.cpp,
// keep_local; moved otherwise): read and written once at the memory rate, on the site that keeps
// most. operator_times charges it where ia::last_uses says so.
double kept_copy_seconds(const IaNode& n, const MachineProfile& profile, std::size_t sites);
// The same for tuples of `resident` bytes per site of which `arrived` came in the exchange.
double kept_copy_seconds(const PerSite& resident, const PerSite& arrived,
                         const MachineProfile& profile, std::size_t sites);

// A loop's carry between two iterations (ia/loop_carry.hpp), per move in carry_moves order: its
// busiest site or host link, as an enforcer's communication, and the runtime's fixed cost of an
// operator (each move is one), and the copy of what its sites keep where the runtime copies
// (copies_kept_tuples); empty without a loop.
std::vector<double> carry_seconds(const Plan& plan, const TimeModel& model);

// A lower bound on estimated_seconds of every plan of `program` on `sites` sites: each needed
// join's calls (one per output tuple, its overhead and its product at least once) spread
// evenly, with nothing else. The tiling search skips tilings whose bound is no better than a
// plan it has (optimizer/tiling_search.hpp).
double compute_lower_bound(const Program& program, const TimeModel& model, int sites);

// The sum of operator_times' seconds, and from the first node on the carry's (one iteration).
double estimated_seconds(const Plan& plan, const TimeModel& model, IaNodeId first = 0);

}  // namespace tra::ia
