#pragma once
// The peak memory model of an IA plan (docs/cost-model.md, "Peak memory"): per site, the largest
// number of bytes resident at once while the plan runs, in plan order, where at node t
//
//   resident(t) = tile bytes of every output alive at t (allocated at its node, freed after its
//                 last consumer; outputs of the program stay to the end), node t's own included;
//                 a fused join's products are never tiles, its sums live from the join on
//                 (output_lifetimes.hpp)
//               + the exchange buffers of node t, if it is an enforcer: one send buffer per
//                 receiver and one receive buffer per sender, held together, each
//                 [8-byte count][per tuple: key values, tile] (exchange_buffers)
//               + with the kernels' scratch (kernel_scratch.hpp, where the caller gives it):
//                 the buffers the kernels keep, grown by node t and the nodes before it, and
//                 what node t's calls take while they run
// and, with `tra run --verify`, after the last node: what is alive then (the outputs and the
// operands the checks kept) plus the checks' own scratch. In a loop (Program::repeat), what
// stays alive across iterations lives to the end (last_uses.hpp), and between iterations the
// carry's buffers and new tiles join what is alive (loop_carry.hpp).
//
// This is what the runtime measures (lib/runtime/execution.cpp; the scratch as
// kernels::scratch_bytes_held), so measured <= predicted.
#include <cstdint>
#include <vector>

#include "ia/kernel_scratch.hpp"
#include "ia/plan.hpp"

namespace tra::ia {

// Per site, the bytes of the send and receive buffers of one exchange: everything the site
// sends and receives, payload and overhead (zero for a node that moves nothing).
std::vector<std::int64_t> exchange_buffers(const Transfer& transfer, int sites);

// The peak per site of a plan whose nodes carry their costs (NodeCost::resident, ::transfer).
// For a run that verifies its outputs (verification_plan.hpp): `kept` nodes' tiles stay until
// the end, and `at_end` (bytes per site) is allocated after the last node, beside what is alive
// then.
// `scratch`: the kernels' scratch of each node (kernel_scratch), held beside the tiles; null:
// tiles and buffers only.
std::vector<std::int64_t> peak_per_site(const Plan& plan, const std::vector<IaNodeId>& kept = {},
                                        const std::vector<std::int64_t>& at_end = {},
                                        const PlanScratch* scratch = nullptr);

}  // namespace tra::ia
