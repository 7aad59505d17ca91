#pragma once
// The match R1-4 (map push-down below an aggregation) and R1-7 (map push-down through a join)
// share: a transform whose kernel does not read its tile's position, reading an operator of
// type Op (AggregateOp, JoinOp) whose kernel it distributes over, a(g(x, y)) == g(a(x), a(y))
// (the registry's `distributes_over`). Each rule adds its own tile-size and sole-use conditions.
#include <optional>
#include <variant>

#include "tra/program.hpp"

namespace tra::optimizer {

template <class Op>
struct DistributingTransform {
    const Node& map;
    const TransformOp& transform;
    const Node& below;  // the node the transform reads
    const Op& op;       // below's operator
};

template <class Op>
std::optional<DistributingTransform<Op>> distributing_transform(const Program& p, NodeId at) {
    const Node& map = p.node(at);
    const auto* t = std::get_if<TransformOp>(&map.op);
    if (!t || t->kernel.properties().reads_tile_position) return std::nullopt;
    const Node& below = p.node(map.inputs[0]);
    const auto* op = std::get_if<Op>(&below.op);
    if (!op) return std::nullopt;
    if (!t->kernel.distributes_over(op->kernel)) return std::nullopt;
    return DistributingTransform<Op>{map, *t, below, *op};
}

}  // namespace tra::optimizer
