#pragma once
// A coarse running-time estimate of a costed IA plan, for ranking plans whose exact bytes tell
// too little: a plan that moves nothing because it computes everything on one site (a
// replicated join with a single output tile, say) is the cheapest by bytes and the slowest to
// run. Bulk-synchronous: every operator waits for its busiest site, so
//
//     seconds = sum over nodes of   max_s flops(node, s) / flop_rate
//                                 + max_s received(node, s) / bandwidth
//
// flops(node, s): the node's flops (plan_costs.hpp) split over the sites in proportion to the
// output copies each holds (a join computes one kernel call per output copy); received: tile
// payload plus overhead bytes the site receives (transfer.hpp). Latency, local copies and
// element-wise kernels are ignored. Needs annotate_costs first.
#include "ia/plan.hpp"

namespace tra::ia {

struct MachineRates {
    // Defaults: one core of the development machine (OpenBLAS Haswell dgemm, one thread, about
    // 50 GFLOP/s) and Open MPI's shared-memory transport between two ranks on it (about 5 GB/s).
    double flops_per_second = 5e10;
    double bytes_per_second = 5e9;
};

double estimated_seconds(const Plan& plan, const MachineRates& rates = {});

}  // namespace tra::ia
