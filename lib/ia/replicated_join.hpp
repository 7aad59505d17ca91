#pragma once
// The replicated ("3-D", RMM) form of a join (thesis 3.2; Agarwal et al. 1995). For
// L ⋈_{lk = rk} R whose output key is L's key ++ R's non-join positions (ia/placement.hpp):
//
//   L* = L replicated over R's non-join positions (extent: R's frontier there), so L*'s key is
//        the output key: (i, k) -> (i, k, 0:FRONT(B)[1]) for A(i,k) ⋈ B(k,j)
//   R* = R with L's non-join positions inserted (extent: L's frontier there) and its positions
//        reordered to the output key: (k, j) -> (0:FRONT(A)[0], k, j)
//   both shuffled to Part[output positions that are not join keys] (Part[0, 2] for matmul),
//   then joined locally on every position: an output key's L* and R* tuples are the pair the
//   TRA join matches, and they meet on one site. An aggregate grouping on those positions (the
//   matmul's k-sum) is then local too.
//
// Output keys are exactly the TRA join's: a key in both L* and R* has its L part in L and its R
// part in R with equal join values, and the frontiers bound every key, so no pair is missed.
#include <optional>
#include <string>

#include "ia/replication.hpp"
#include "tra/program.hpp"

namespace tra::ia {

// Why the RMM form does not exist for this join, or nullopt: it needs join keys, no position
// repeated among them, a non-join position on each side and non-empty operands.
std::optional<std::string> rmm_problem(const JoinOp& op, const Node& left, const Node& right);

Replication rmm_left_replication(const JoinOp& op, const Node& left, const Node& right);
Replication rmm_right_replication(const JoinOp& op, const Node& left, const Node& right);

// The output key positions that are not join keys: the shuffle target Part of L* and R*.
KeyPositions rmm_partition(const JoinOp& op, const Node& left, const Node& right);

// op's kernel applied by a join on every position 0..output_arity-1 of L* and R*.
JoinOp rmm_local_join(const JoinOp& op, std::size_t output_arity);

// What is wrong with a local join of TRA join `op` (operands left, right) whose inputs hold
// `l` and `r` (nullptr: the TRA operand itself) and which applies `applied`; nullopt when it is
// a correct RMM join. Only called when l or r is replicated.
std::optional<std::string> rmm_join_problem(const JoinOp& op, const Node& left, const Node& right,
                                            const ReplicatedRelation* l,
                                            const ReplicatedRelation* r, const JoinOp& applied);

}  // namespace tra::ia
