#include "ia/plan.hpp"

#include <string>

#include "core/error.hpp"
#include "ia/operator_spec.hpp"

namespace tra::ia {

namespace {

std::string input_list(const IaNode& n) {
    std::string s;
    for (std::size_t i = 0; i < n.inputs.size(); ++i)
        s += (i ? ", #" : " <- #") + std::to_string(n.inputs[i]);
    return s;
}

}  // namespace

std::string op_name(IaOp op) {
    return operator_spec(op).name;
}

bool is_enforcer(IaOp op) {
    return operator_spec(op).enforcer;
}

std::string op_label(const IaNode& n) {
    const OperatorSpec& spec = operator_spec(n.op);
    return spec.arguments ? spec.name + spec.arguments(n) : spec.name;
}

std::string positions_text(const KeyPositions& p) {
    std::string s = "[";
    for (std::size_t i = 0; i < p.size(); ++i) s += (i ? ", " : "") + std::to_string(p[i]);
    return s + "]";
}

std::string IaNode::str() const {
    return "#" + std::to_string(id) + " " + op_label(*this) + input_list(*this) + " (origin " +
           std::to_string(origin) + ") : " + placement.str();
}

Plan::Plan(const Program& program, int sites) : program_(&program), sites_(sites) {
    if (sites < 1) throw Error("site count must be at least 1, got " + std::to_string(sites));
    for (std::size_t i = 0; i < program.nodes.size(); ++i) results_.push_back(std::nullopt);
}

IaNodeId Plan::add(IaNode node) {
    node.id = nodes_.size();
    // Plan order is execution order, so an input must come first; checking here keeps every
    // later traversal (validator, costs) a single forward pass.
    for (IaNodeId in : node.inputs)
        if (in >= node.id)
            throw Error("IA node #" + std::to_string(node.id) + " uses #" + std::to_string(in) +
                            ", which does not precede it",
                        {}, ErrorKind::Failed);
    if (node.origin >= program_->nodes.size())
        throw Error("IA node #" + std::to_string(node.id) + " has no TRA origin " +
                        std::to_string(node.origin),
                    {}, ErrorKind::Failed);
    if (is_enforcer(node.op) && node.inputs.size() == 1)
        node.replicated = nodes_.at(node.inputs[0]).replicated;
    nodes_.push_back(std::move(node));
    return nodes_.back().id;
}

std::shared_ptr<const ReplicatedRelation> Plan::replicated(NodeId origin,
                                                           const Replication& spec) const {
    auto& r = (*replications_)[std::to_string(origin) + " " + spec.str()];
    if (!r) r = replicate_relation(program_->node(origin), spec);
    return r;
}

void Plan::set_result(NodeId tra, IaNodeId ia) {
    if (tra >= results_.size())
        throw Error("IA node #" + std::to_string(ia) + " is the result of no TRA node " +
                        std::to_string(tra),
                    {}, ErrorKind::Failed);
    results_.mutable_at(tra) = ia;
}

std::optional<IaNodeId> Plan::result(NodeId tra) const {
    return tra < results_.size() ? results_[tra] : std::nullopt;
}

std::map<NodeId, IaNodeId> Plan::results() const {
    std::map<NodeId, IaNodeId> out;
    for (NodeId tra = 0; tra < results_.size(); ++tra)
        if (results_[tra]) out.emplace(tra, *results_[tra]);
    return out;
}

KeyPositions Plan::aggregate_by(const IaNode& n) const {
    if (const auto group_by = operator_spec(n.op).group_by)
        if (auto by = group_by(*this, n)) return *by;
    throw Error("IA node #" + std::to_string(n.id) + " is not a local aggregate with a group-by",
                {}, ErrorKind::Failed);
}

bool Plan::holds_partials(IaNodeId id) const {
    // Walk back through the operators that move partials: moving them keeps them partials.
    for (;;) {
        const IaNode& n = nodes_.at(id);
        const OperatorSpec& spec = operator_spec(n.op);
        if (spec.makes_partials) return true;
        if (!spec.moves_partials || n.inputs.size() != 1 || n.inputs[0] >= n.id) return false;
        id = n.inputs[0];
    }
}

std::string Plan::str() const {
    std::string s;
    for (const IaNode& n : nodes_)
        s += "#" + std::to_string(n.id) + " " + op_label(n) + " " + relation(n.id).name +
             input_list(n) + " : " + n.placement.str() + "\n";
    return s;
}

}  // namespace tra::ia
