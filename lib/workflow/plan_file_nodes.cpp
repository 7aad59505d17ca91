// Reading a plan file's `nodes:` list (docs/plan-format.md): each node is checked against the
// workflow's relations and the nodes before it, then the plan is validated with it, so every
// error is placed at the node's line and column. The file-level fields (format, workflow path
// and hash, rewrites) are read in plan_file.cpp.
#include "workflow/plan_file_nodes.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/error.hpp"
#include "ia/operator_spec.hpp"
#include "ia/plan_validator.hpp"
#include "ia/replicated_join.hpp"
#include "workflow/placement_text.hpp"
#include "workflow/replication_text.hpp"

namespace tra::workflow {

namespace {

using ia::IaNode;
using ia::IaNodeId;

ia::IaOp parse_op(const Field& f) {
    const std::string text = f.as_string();
    std::string names;
    for (const ia::OperatorSpec& spec : ia::operator_specs()) {
        if (spec.name == text) return spec.op;
        names += (names.empty() ? "" : ", ") + spec.name;
    }
    f.fail("unknown op '" + text + "' (expected one of: " + names + ")");
}

// The local IA operator that computes a TRA operator (Table 1); enforcers fit any origin.
ia::IaOp computing_op(const Operator& op) {
    return ia::computing_operator(op).op;
}

std::string names_of(const Program& program, const std::vector<NodeId>& ids) {
    std::string s;
    for (NodeId id : ids) s += (s.empty() ? "" : ", ") + program.node(id).name;
    return s;
}

// "node #3 (local_join producing 'AB')", as ia::validate names nodes.
std::string label(IaNodeId id, ia::IaOp op, const std::string& origin) {
    return "node #" + std::to_string(id) + " (" + ia::op_name(op) + " producing '" + origin + "')";
}

std::vector<NodeId> all_ids(const Program& program) {
    std::vector<NodeId> ids(program.nodes.size());
    for (NodeId i = 0; i < ids.size(); ++i) ids[i] = i;
    return ids;
}

// A local aggregate whose one input is an earlier node holding partials of its own relation
// combines them (R2-5) instead of reading its TRA operand.
bool combines_partials(const ia::Plan& plan, const IaNode& n, const std::vector<Field>& items) {
    if (!ia::operator_spec(n.op).combines_partials || items.size() != 1) return false;
    const std::int64_t in = items[0].as_int();
    if (in < 0 || static_cast<IaNodeId>(in) >= n.id) return false;
    const auto id = static_cast<IaNodeId>(in);
    return plan.node(id).origin == n.origin && plan.holds_partials(id);
}

// Inputs must precede the node and hold the relations its operator consumes: an enforcer
// moves its own origin's relation; a local op reads its origin's TRA operands, in order.
template <typename Fail>
void read_inputs(const ia::Plan& plan, const Field& f, IaNode& n, const Node& node, Fail fail_at) {
    const Program& program = plan.program();
    std::vector<Field> items;
    if (f.has("inputs")) items = f.at("inputs").elements();
    std::vector<NodeId> wanted;
    if (ia::is_enforcer(n.op) || combines_partials(plan, n, items) ||
        (ia::operator_spec(n.op).makes_replicas && f.has("replicate")))
        wanted = {n.origin};
    else if (ia::operator_spec(n.op).arity > 0)
        wanted = node.inputs;
    if (items.size() != wanted.size())
        fail_at(f.has("inputs") ? f.at("inputs") : f,
                "takes " + std::to_string(wanted.size()) + " input(s)" +
                    (wanted.empty() ? std::string() : " holding " + names_of(program, wanted)) +
                    ", got " + std::to_string(items.size()));
    for (std::size_t i = 0; i < items.size(); ++i) {
        const std::int64_t in = items[i].as_int();
        if (in < 0 || static_cast<IaNodeId>(in) >= n.id)
            fail_at(items[i], "input #" + std::to_string(in) +
                                  " does not come before it (inputs name earlier node ids)");
        const auto id = static_cast<IaNodeId>(in);
        if (plan.node(id).origin != wanted[i])
            fail_at(items[i], "input #" + std::to_string(id) + " holds '" + plan.origin(id).name +
                                  "' but input " + std::to_string(i) + " must hold '" +
                                  program.node(wanted[i]).name + "'");
        n.inputs.push_back(id);
    }
}

// dims (shuffle only) and arity (map only, fixed by the origin's operator).
template <typename Fail>
void read_op_arguments(const ia::Plan& plan, const Field& f, IaNode& n, const Node& node,
                       Fail fail_at) {
    const ia::OperatorSpec& spec = ia::operator_spec(n.op);
    if (spec.has_dims)
        n.shuffle_dims = f.at("dims").as_positions();
    else if (f.has("dims"))
        fail_at(f.at("dims"), "dims belongs to shuffle nodes only");
    if (!spec.has_arity) {
        if (f.has("arity")) fail_at(f.at("arity"), "arity belongs to map nodes only");
        return;
    }
    // A tile map yields one tuple per piece; rekey and transform one per input tuple. The
    // TRA operator fixes it, so a different value is an error rather than a choice.
    int expected = 1;
    if (const auto* tile = std::get_if<TileOp>(&node.op)) {
        const std::int64_t extent = plan.program().node(node.inputs.at(0)).type.bound[tile->dim];
        expected = static_cast<int>((extent + tile->size - 1) / tile->size);
    }
    n.map_arity = expected;
    if (f.has("arity")) {
        const Field a = f.at("arity");
        if (a.as_int() != expected)
            fail_at(a, "a map for TRA " + operator_name(node.op) + " '" + node.name +
                           "' has arity " + std::to_string(expected) + ", not " +
                           std::to_string(a.as_int()));
    }
}

// replicate (a replication map's spec, docs/plan-format.md) and its arity, if given.
template <typename Fail>
void read_replication(const Program& program, const Field& f, IaNode& n, const Node& node,
                      Fail fail_at) {
    const Field rf = f.at("replicate");
    const auto spec = parse_replication(rf.as_string());
    if (!spec)
        fail_at(rf, "bad replication '" + rf.as_string() + "' (expected a list such as " +
                        "(k0, k1, 0:4): kN copies key position N of '" + node.name +
                        "', 0:N is a new position with N copies)");
    if (auto why = spec->problem(node.type.key_arity))
        fail_at(rf, "bad replication " + spec->str() + " of '" + node.name + "': " + *why);
    // A join needs copies up to some relation's extent; more would only exhaust memory
    // before the validator could say so.
    std::int64_t largest = 1;
    for (const Node& other : program.nodes)
        for (std::int64_t e : other.frontier.values()) largest = std::max(largest, e);
    for (const auto& pos : spec->positions)
        if (!pos.from && pos.copies > largest)
            fail_at(rf, "replication " + spec->str() + ": 0:" + std::to_string(pos.copies) +
                            " exceeds every extent of the workflow's relations (at most " +
                            std::to_string(largest) + ")");
    n.replicated = ia::replicate_relation(node, *spec);
    n.map_arity = static_cast<int>(spec->arity());
    if (f.has("arity") && f.at("arity").as_int() != spec->arity())
        fail_at(f.at("arity"), "replication " + spec->str() + " has arity " +
                                   std::to_string(spec->arity()) + ", not " +
                                   std::to_string(f.at("arity").as_int()));
}

}  // namespace

void add_plan_node(ia::Plan& plan, const Field& f) {
    const Program& program = plan.program();
    if (!f.is_map()) f.fail("a node is a map such as {id: 0, op: input, origin: A, ...}");
    f.allow_only({"id", "op", "origin", "inputs", "dims", "arity", "replicate", "placement",
                  "rules", "does"});
    IaNode n;
    n.id = plan.size();
    const Field id = f.at("id");
    if (id.as_int() != static_cast<std::int64_t>(n.id))
        id.fail("node ids are positions in the list: this is node #" + std::to_string(n.id) +
                ", not #" + std::to_string(id.as_int()) +
                " (renumber the nodes and the inputs that name them)");
    n.op = parse_op(f.at("op"));
    const Field origin = f.at("origin");
    const std::string origin_name = origin.as_string();
    const auto tra = program.find(origin_name);
    if (!tra)
        origin.fail("node #" + std::to_string(n.id) + ": unknown origin '" + origin_name +
                    "': the workflow has no relation of that name (it has " +
                    names_of(program, all_ids(program)) + ")");
    n.origin = *tra;
    const Node& node = program.node(n.origin);
    const std::string who = label(n.id, n.op, origin_name);
    auto fail_at = [&](const Field& where, const std::string& why) {
        throw Error(who + ": " + why, where.where());
    };

    // The op must be the one that computes the origin's TRA operator, or an enforcer, or
    // for an aggregate its partial aggregation (R2-5).
    const ia::OperatorSpec& spec = ia::operator_spec(n.op);
    const bool partial = spec.makes_partials && std::holds_alternative<AggregateOp>(node.op);
    // A replication map copies its origin's relation, whatever computed it (RMM's A*).
    const bool replication = spec.makes_replicas && f.has("replicate");
    if (f.has("replicate") && !replication)
        fail_at(f.at("replicate"), "replicate belongs to map nodes only");
    if (!ia::is_enforcer(n.op) && n.op != computing_op(node.op) && !partial && !replication)
        fail_at(f.at("op"), "'" + origin_name + "' is a TRA " + operator_name(node.op) +
                                ", which " + ia::op_name(computing_op(node.op)) +
                                " computes (or bcast/shuffle move), not " + ia::op_name(n.op));
    if (!ia::is_enforcer(n.op) && !replication) n.logical = node.op;
    read_inputs(plan, f, n, node, fail_at);
    if (replication)
        read_replication(program, f, n, node, fail_at);
    else
        read_op_arguments(plan, f, n, node, fail_at);
    // A join of replicated relations is the RMM form: it joins on every key position.
    if (spec.reads_replicated && n.inputs.size() == 2 &&
        (plan.node(n.inputs[0]).replicated || plan.node(n.inputs[1]).replicated))
        n.logical = ia::rmm_local_join(std::get<JoinOp>(node.op), node.type.key_arity);
    // The relation the node holds: an enforcer's is its input's (Plan::add carries it).
    const Node& held = n.replicated                                    ? n.replicated->relation
                       : ia::is_enforcer(n.op) && n.inputs.size() == 1 ? plan.relation(n.inputs[0])
                                                                       : node;
    if (f.has("rules")) n.rules = f.at("rules").as_strings();

    if (f.has("placement")) {
        const Field pf = f.at("placement");
        auto p = parse_placement(pf.as_string());
        if (!p)
            fail_at(pf,
                    "bad placement '" + pf.as_string() + "' (expected " + placement_syntax() + ")");
        for (std::size_t d : p->dims())
            if (d >= held.type.key_arity)
                fail_at(pf, "placement " + p->str() + " uses key position " + std::to_string(d) +
                                " but '" + held.name + "' has keys of " +
                                std::to_string(held.type.key_arity) + " positions");
        n.placement = *p;
    } else if (spec.arity == 0) {
        fail_at(f, "an input node needs a placement (where each site reads its tuples)");
    } else {
        // Optional for computed nodes: what the inputs produce; validate() says why if none.
        n.placement =
            ia::infer_output_placement(plan, n).placement.value_or(ia::Placement::unknown());
    }
    plan.add(std::move(n));
    // Validating after every node means a failure can only be this node's: its location is
    // known without parsing the validator's message.
    try {
        ia::validate(plan);
    } catch (const Error& e) {
        throw Error(e.message(), f.where(), ErrorKind::BadInput);
    }
}

// The node computing each TRA relation is its result (enforcers only move it); every
// relation the workflow's outputs need must be computed exactly once.
void set_plan_results(ia::Plan& plan, const Field& nodes) {
    const std::vector<Field> items = nodes.elements();
    for (const IaNode& n : plan.nodes()) {
        // Partials are not the relation: the local aggregate combining them computes it.
        // Nor is a replication of it (RMM's A*): the relation was computed before.
        const ia::OperatorSpec& spec = ia::operator_spec(n.op);
        if (spec.enforcer || spec.makes_partials || n.replicated) continue;
        if (auto before = plan.result(n.origin))
            throw Error(label(n.id, n.op, plan.origin(n.id).name) + ": node #" +
                            std::to_string(*before) + " already computes '" +
                            plan.origin(n.id).name + "'",
                        items[n.id].where());
        plan.set_result(n.origin, n.id);
    }
    const Program& program = plan.program();
    for (NodeId id = 0; id < program.nodes.size(); ++id)
        if (program.node(id).needed && !plan.result(id))
            nodes.fail("no node computes '" + program.node(id).name + "' (a TRA " +
                       operator_name(program.node(id).op) +
                       ", needed by the workflow's outputs): add a " +
                       ia::op_name(computing_op(program.node(id).op)) + " node for it");
}

}  // namespace tra::workflow
