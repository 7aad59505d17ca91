#pragma once
// A coarse running-time estimate of a costed IA plan, for ranking plans whose exact bytes tell
// too little: a plan that moves nothing because it computes everything on one site (a
// replicated join with a single output tile, say) is the cheapest by bytes and the slowest to
// run. Bulk-synchronous: every operator waits for its busiest site, so
//
//     seconds = sum over nodes of   max_s flops(node, s) / flop_rate
//                                 + max_s received(node, s) / bandwidth
//                                 + max_s passed(node, s) / memory_rate
//
// flops(node, s): the node's flops (plan_costs.hpp) split over the sites in proportion to the
// output copies each holds (a join computes one kernel call per output copy); received: tile
// payload plus overhead bytes the site receives (transfer.hpp); passed: the tile bytes a join or
// aggregate writes and reads outside a fused join and sum (fused_joins.hpp): a local join that
// is not fused writes its products, an aggregate that is not reads its input and writes its
// output. Why: plans with equal flops and bytes differ by that pass (on one rank, 1024 x 65536 x
// 1024 with 2048 tiles: 1.81 s fused, 2.02 s with the products written and summed apart).
// Latency, local copies and element-wise maps are ignored. Needs annotate_costs first.
#include "ia/plan.hpp"

namespace tra::ia {

struct MachineRates {
    // Defaults: one core of the development machine (OpenBLAS Haswell dgemm, one thread, about
    // 50 GFLOP/s), Open MPI's shared-memory transport between two ranks on it (about 5 GB/s) and
    // its memory.
    double flops_per_second = 5e10;
    double bytes_per_second = 5e9;
    // Tile bytes read or written per second by a pass of `add` over tiles on the same machine
    // (one thread; measured about 7 GB/s).
    double memory_bytes_per_second = 5e9;
};

double estimated_seconds(const Plan& plan, const MachineRates& rates = {});

}  // namespace tra::ia
