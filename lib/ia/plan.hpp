#pragma once
// An IA plan: the physical operators of the TRA paper's section 4 (thesis 3.2.2) as a DAG over a
// typed TRA Program. Every IA node produces the relation of one TRA node (its `origin`): a local
// operator computes it, an enforcer (bcast/shuffle) moves its input's relation, so types, key
// sets and frontiers are never copied into the plan -- they are read from the Program, which
// already holds them exactly. The plan adds only what is physical: where each relation lives
// (Placement) and what producing it costs (NodeCost, filled by plan_costs). Each operator is
// declared in lib/ia/operators/<op>.cpp (ia/operator_spec.hpp):
//
//   input            a TRA input, read or generated in place by every site: free
//   bcast            the same tuples, afterwards on every site (All)
//   shuffle(d)       the same tuples, afterwards on Part(d) (d ordered)
//   grid             the same tuples, afterwards on the node's stored Grid placement (possibly
//                    replicated along a grid axis): SUMMA's operand layouts (ia/grid_move.hpp)
//   local_join       a TRA join run on each site over the tuples that site holds
//   local_aggregate  a TRA aggregate (or concat) run per site: groups must not span sites
//   partial_aggregate  a TRA aggregate run per site over what each site holds, groups MAY span
//                    sites (R2-5): one partial per (group, site holding a tuple of it); its
//                    placement is Unknown (ia/partials.hpp traces the holders). Only a shuffle
//                    (to the groups' homes: a reduce) or the combining local_aggregate (input
//                    holds partials, same origin: groups by every key position, folding the
//                    partials by source site ascending) may consume partials.
//   local_filter     a TRA filter, tuple by tuple
//   map              one input tuple -> `map_arity` output tuples: TRA rekey, transform, tile;
//                    or a replication map (no logical operator, `replicated` set): each tuple
//                    copied under inserted key positions (ia/replication.hpp), for RMM joins
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ia/persistent_vector.hpp"
#include "ia/placement.hpp"
#include "ia/replication.hpp"
#include "ia/transfer.hpp"
#include "tra/program.hpp"

namespace tra::ia {

using IaNodeId = std::size_t;

// The IA operators; each is declared by its own file, lib/ia/operators/<op>.cpp, and registered
// by one line of operators.def, which also makes its enumerator here (ia/operator_spec.hpp).
enum class IaOp {
#define TRA_IA_OPERATOR(enumerator, spec) enumerator,
#include "ia/operators/operators.def"
#undef TRA_IA_OPERATOR
};

// "input", "bcast", "shuffle", "local_join", "local_aggregate", "local_filter", "map", "grid",
// "partial_aggregate": the operator's spelling (OperatorSpec::name).
std::string op_name(IaOp op);
// Enforcers move data and nothing else; everything else is an operator that runs per site.
bool is_enforcer(IaOp op);

struct IaNode;
// "shuffle[0, 2]", "map x4", "local_join": the op with the arguments that distinguish it.
std::string op_label(const IaNode& node);
// "[0, 2]": key positions as plans and messages print them.
std::string positions_text(const KeyPositions& positions);

// What one IA node costs (docs/cost-model.md, "Plan costs"). Filled by annotate_costs.
struct NodeCost {
    bool annotated = false;
    Transfer transfer;                   // enforcers: exact bytes moved; zero otherwise
    double paper_floats = 0;             // the paper's 5.3 model: bcast f*S, shuffle f, else 0
    double paper_floats_aggregated = 0;  // the same, a shuffle of partials charged at the
                                         // aggregated size as the paper does (plan_costs.hpp)
    PerSite resident;                    // per site: tile bytes of this node's output
    std::int64_t flops = 0;              // summed over sites (replicated work counts per copy)
    // Where the output's tuples are (traced through maps and partial aggregates when the
    // placement is Unknown): what the search's strategies ask of a costed node.
    std::shared_ptr<const SiteMap> sites;
};

struct IaNode {
    IaNodeId id = 0;
    IaOp op = IaOp::Input;
    std::vector<IaNodeId> inputs;
    NodeId origin = 0;  // the TRA node whose relation this node produces
    // The TRA operator a local op or map applies (the origin's op: JoinOp, AggregateOp, ConcatOp
    // for a concat's aggregate, FilterOp, RekeyOp, TransformOp, TileOp); InputOp for inputs;
    // empty for enforcers, which apply none.
    std::optional<Operator> logical;
    KeyPositions shuffle_dims;  // Shuffle: the ordered Part dims it produces
    int map_arity = 1;          // Map: output tuples per input tuple (tile: pieces)
    Placement placement;        // where the output lives
    // Set when the output is not the origin's TRA relation but that relation replicated: on a
    // replication map, and on every enforcer moving its output (Plan::add copies it from the
    // input). Shared, since it holds the replicated key set.
    std::shared_ptr<const ReplicatedRelation> replicated;
    std::vector<std::string> rules;  // rules that produced the node; "compile" initially
    NodeCost cost;

    // "#3 shuffle[0, 2] <- #2 (origin 4) : Part[0, 2]" -- without names; Plan::str has them.
    std::string str() const;
};

class Plan {
  public:
    Plan(const Program& program, int sites);

    const Program& program() const { return *program_; }
    int sites() const { return sites_; }

    // Appends `node`, giving it the next id; inputs must already exist. An enforcer gets its
    // input's `replicated` relation (it moves that relation). Returns the id.
    IaNodeId add(IaNode node);
    const IaNode& node(IaNodeId id) const { return nodes_.at(id); }
    // Copies of a plan share their nodes (the search copies partial plans per candidate), so
    // changing a node is explicit: it unshares that one node.
    IaNode& mutable_node(IaNodeId id) { return nodes_.mutable_at(id); }
    const PersistentVector<IaNode>& nodes() const { return nodes_; }
    std::size_t size() const { return nodes_.size(); }

    // The TRA node an IA node's relation belongs to.
    const Node& origin(IaNodeId id) const { return program_->node(nodes_.at(id).origin); }
    // The TRA operator an IA node applies: its own (IaNode::logical) or else its origin's.
    const Operator& logical(IaNodeId id) const {
        const IaNode& n = nodes_.at(id);
        return n.logical ? *n.logical : origin(id).op;
    }
    // The relation an IA node's output holds (type, key set, frontier): its origin's, or the
    // replicated relation after a replication map.
    const Node& relation(IaNodeId id) const {
        const IaNode& n = nodes_.at(id);
        return n.replicated ? n.replicated->relation : program_->node(n.origin);
    }

    // TRA node `origin`'s relation replicated by `spec` (replicate_relation), built once and
    // shared by every copy of this plan: the search copies plans per candidate, and a
    // replicated key set is m times its source's.
    std::shared_ptr<const ReplicatedRelation> replicated(NodeId origin,
                                                         const Replication& spec) const;

    // The IA node holding the final relation of a TRA node (after its enforcers, if any).
    void set_result(NodeId tra, IaNodeId ia);
    std::optional<IaNodeId> result(NodeId tra) const;
    std::map<NodeId, IaNodeId> results() const;

    // The group-by positions of a local or partial aggregate: AggregateOp.by, or for a concat
    // every key position of its input but key_dim; for a local aggregate combining partials
    // (its input holds partials) every position 0..arity-1 of the partials' key. Throws Error
    // (Failed) for other nodes. Takes the node, not an id, so a node can be checked before it is
    // added.
    KeyPositions aggregate_by(const IaNode& node) const;

    // Whether node `id`'s output holds partial results (several per key, at most one per site
    // that computed it): a partial_aggregate, or a shuffle of partials. Derived from the ops, so
    // a plan file needs no extra field.
    bool holds_partials(IaNodeId id) const;

    // One line per node: "#3 shuffle[0, 2] AB <- #2 : Part[0, 2]".
    std::string str() const;

  private:
    const Program* program_;
    int sites_;
    PersistentVector<IaNode> nodes_;
    PersistentVector<std::optional<IaNodeId>> results_;  // indexed by TRA node
    using Replications = std::map<std::string, std::shared_ptr<const ReplicatedRelation>>;
    std::shared_ptr<Replications> replications_ = std::make_shared<Replications>();
};

}  // namespace tra::ia
