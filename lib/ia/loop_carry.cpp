#include "ia/loop_carry.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "ia/last_uses.hpp"
#include "ia/peak_memory.hpp"

namespace tra::ia {

namespace {

// The input's IA node: the one input node whose origin is the carried TRA input.
std::optional<IaNodeId> input_node(const Plan& plan, NodeId input) {
    for (const IaNode& n : plan.nodes())
        if (n.op == IaOp::Input && n.origin == input) return n.id;
    return std::nullopt;
}

}  // namespace

std::vector<CarryMove> carry_moves(const Plan& plan) {
    std::vector<CarryMove> moves;
    const auto& repeat = plan.program().repeat;
    if (!repeat) return moves;
    for (const Carry& c : repeat->carry) {
        const auto step = plan.result(c.step);
        const auto input = input_node(plan, c.input);
        if (!step || !input) continue;
        const IaNode& from = plan.node(*step);
        if (!from.cost.sites)
            throw Error("internal: the carry of " + plan.program().node(c.input).name +
                            " needs the costs of IA node #" + std::to_string(*step),
                        {}, ErrorKind::Failed);
        const Node& relation = plan.relation(*input);
        moves.push_back(
            {*input, *step,
             exact_transfer(*from.cost.sites, relation.type.key_arity, relation.type.tile_bytes(),
                            plan.node(*input).placement, plan.sites())});
    }
    return moves;
}

std::vector<std::int64_t> carry_scratch(const Plan& plan, const std::vector<CarryMove>& moves) {
    const auto S = static_cast<std::size_t>(plan.sites());
    std::vector<std::int64_t> scratch(S, 0);
    for (const CarryMove& m : moves) {
        const std::vector<std::int64_t> buffers = exchange_buffers(m.transfer, plan.sites());
        const Node& relation = plan.relation(m.input);
        const std::vector<std::int64_t> tiles = resident_bytes(
            relation.keys, relation.type.tile_bytes(), plan.node(m.input).placement, plan.sites());
        for (std::size_t s = 0; s < S; ++s) scratch[s] += buffers.at(s) + tiles.at(s);
    }
    return scratch;
}

bool copies_kept_tuples(const Plan& plan, const std::vector<CarryMove>& moves, std::size_t j) {
    const IaNodeId step = moves.at(j).step;
    const auto takers = std::count_if(moves.begin(), moves.end(),
                                      [&](const CarryMove& m) { return m.step == step; });
    return takers > 1 || read_once(plan, plan.node(step));
}

}  // namespace tra::ia
