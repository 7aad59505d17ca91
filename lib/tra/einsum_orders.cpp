#include "tra/einsum_orders.hpp"

#include <cstdio>

namespace tra {

namespace {

const JoinOp* einsum_join(const Node& n) {
    const auto* j = std::get_if<JoinOp>(&n.op);
    return j && j->kernel.name() == "einsum" ? j : nullptr;
}

class OrderReader {
  public:
    OrderReader(const Program& p, const std::string& step) : p_(p), step_(step) {}

    // The subtree computing `id`, whose labels are `labels`; operands of the step are leaves.
    std::string tree(NodeId id, const std::string& labels) {
        const Node& n = p_.node(id);
        if (n.lowered_from != step_) return labels;
        if (const JoinOp* j = einsum_join(n)) {
            const std::string& spec = j->kernel.params().spec;  // "lx,ly->r"
            const auto comma = spec.find(','), arrow = spec.find("->");
            if (comma == std::string::npos || arrow == std::string::npos || n.inputs.size() != 2)
                return labels;
            const std::string lx = spec.substr(0, comma),
                              ly = spec.substr(comma + 1, arrow - comma - 1);
            count_flops(lx, p_.node(n.inputs[0]), ly, p_.node(n.inputs[1]));
            return "(" + tree(n.inputs[0], lx) + "," + tree(n.inputs[1], ly) + ")";
        }
        // A sum or reordering of a join's result: the join tells the labels.
        return n.inputs.size() == 1 ? tree(n.inputs[0], labels) : labels;
    }

    double flops() const { return flops_; }

  private:
    // Adds the product of the extents of the labels of both sides (shared ones once); key
    // position d of an einsum operand tiles its dimension d.
    void count_flops(const std::string& lx, const Node& l, const std::string& ly, const Node& r) {
        double product = 1;
        for (std::size_t d = 0; d < lx.size() && d < l.frontier.size(); ++d)
            product *= static_cast<double>(l.frontier[d] * l.type.bound[d]);
        for (std::size_t d = 0; d < ly.size() && d < r.frontier.size(); ++d)
            if (lx.find(ly[d]) == std::string::npos)
                product *= static_cast<double>(r.frontier[d] * r.type.bound[d]);
        flops_ += product;
    }

    const Program& p_;
    const std::string& step_;
    double flops_ = 0;
};

}  // namespace

std::string EinsumOrder::str() const {
    char f[32];
    // Exact while a double holds every integer; rounded beyond.
    std::snprintf(f, sizeof f, flops < 9007199254740992.0 ? "%.0f" : "%.4g", flops);
    return "einsum " + step + ": order " + tree + " flops " + f;
}

std::vector<EinsumOrder> einsum_orders(const Program& program) {
    // The root of each step's tree is its last join; steps in the order their roots appear.
    std::vector<std::pair<std::string, NodeId>> roots;
    for (NodeId id = 0; id < program.nodes.size(); ++id) {
        const Node& n = program.node(id);
        if (n.lowered_from.empty() || !einsum_join(n)) continue;
        bool seen = false;
        for (auto& [step, root] : roots)
            if (step == n.lowered_from) {
                root = id;
                seen = true;
            }
        if (!seen) roots.emplace_back(n.lowered_from, id);
    }
    std::vector<EinsumOrder> orders;
    for (const auto& [step, root] : roots) {
        OrderReader reader(program, step);
        std::string tree = reader.tree(root, "");
        orders.push_back({step, std::move(tree), reader.flops()});
    }
    return orders;
}

}  // namespace tra
