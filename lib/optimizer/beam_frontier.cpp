#include "optimizer/beam_frontier.hpp"

#include <algorithm>

namespace tra::optimizer {

namespace {

// splitmix64's finaliser: a well-mixed 64-bit hash step.
std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    std::uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

std::uint64_t placement_hash(const ia::Placement& p) {
    std::uint64_t h = mix(0, static_cast<std::uint64_t>(p.kind()));
    for (std::size_t d : p.dims()) h = mix(h, d);
    h = mix(h, static_cast<std::uint64_t>(p.grid_rows()));
    h = mix(h, static_cast<std::uint64_t>(p.grid_cols()));
    h = mix(h, static_cast<std::uint64_t>(p.grid_layers()));
    return mix(h, static_cast<std::uint64_t>(p.replicate()));
}

// What makes one IA node the node it is, short of its inputs.
std::uint64_t node_hash(const ia::IaNode& n) {
    std::uint64_t h = mix(0, static_cast<std::uint64_t>(n.op));
    h = mix(h, n.origin);
    for (std::size_t d : n.shuffle_dims) h = mix(h, d);
    h = mix(h, static_cast<std::uint64_t>(n.map_arity));
    h = mix(h, n.replicated ? 1 : 0);
    return mix(h, placement_hash(n.placement));
}

}  // namespace

LiveRelations::LiveRelations(std::vector<NodeId> ids, std::size_t node_count)
    : ids_(std::move(ids)), mask_(node_count, 0) {
    for (NodeId id : ids_) mask_.at(id) = 1;
}

std::vector<LiveRelations> live_after_each_step(const Program& program,
                                                const std::vector<NodeId>& order) {
    std::vector<LiveRelations> live(order.size());
    if (program.repeat) return live;
    // The last step that reads each node; outputs are read after the last step.
    constexpr std::size_t kNever = static_cast<std::size_t>(-1);
    std::vector<std::size_t> last_read(program.nodes.size(), kNever);
    for (std::size_t step = 0; step < order.size(); ++step)
        for (NodeId in : program.node(order[step]).inputs) last_read[in] = step;
    for (const Output& out : program.outputs) last_read[out.node] = order.size();
    for (std::size_t step = 0; step < order.size(); ++step) {
        std::vector<NodeId> ids;
        for (std::size_t placed = 0; placed <= step; ++placed) {
            const NodeId id = order[placed];
            if (last_read[id] != kNever && last_read[id] > step) ids.push_back(id);
        }
        std::sort(ids.begin(), ids.end());
        live[step] = LiveRelations(std::move(ids), program.nodes.size());
    }
    return live;
}

std::optional<std::uint64_t> frontier_signature(const ia::Plan& plan, const LiveRelations& live) {
    if (live.ids().empty()) return std::nullopt;
    std::uint64_t sum = 0;
    for (ia::IaNodeId id = 0; id < plan.size(); ++id) {
        const ia::IaNode& n = plan.node(id);
        if (!live.contains(n.origin)) continue;
        std::uint64_t h = mix(node_hash(n), plan.result(n.origin) == id ? 1 : 0);
        for (ia::IaNodeId in : n.inputs) h = mix(h, node_hash(plan.node(in)));
        sum += h;  // a sum: the same nodes in any order give the same signature
    }
    return sum;
}

}  // namespace tra::optimizer
